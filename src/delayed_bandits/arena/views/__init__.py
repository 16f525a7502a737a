"""The views of the arena's figures, one module each, which ``arena.plots`` gathers into the
kinds of figure the registry reads (``PLOTS``): ``heatmap``, the leaderboard as a heatmap of
regret over the best in each setting at matched exploration (at T, and at T/10 as another view);
``curves``, the regret curves behind it, an A4 page per problem; ``window``, the window study
(regret at T against the censoring window m); ``ranks``, the critical-difference diagram of the
algorithms' mean ranks. What they share: ``common``, the board's rows, labels and problems, and
``families``, the colour per family of algorithms and line style per member of the curves and
the window study."""
