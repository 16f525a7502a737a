"""Where the arena was: ``delayed_bandits.papers.arena`` moved to ``delayed_bandits.arena`` (a
package of its own above the papers, docs/architecture.md). A plug-in written for the edition
before imports this path; it is told the new one, and nothing else is found here (a plain module,
not a package, so the registry, which loads the packages of ``papers/``, does not take it for a
paper)."""

raise ImportError(
    "delayed_bandits.papers.arena moved to delayed_bandits.arena: import "
    "delayed_bandits.arena.entrants (from_policy, Problem, CONVERSIONS, SETTLED, LABELLED) and "
    "delayed_bandits.arena.experiment instead, e.g. "
    "`from delayed_bandits.arena.entrants import from_policy` (docs/extending.md)",
    name=__name__,
)
