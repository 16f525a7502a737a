"""The error types for bad user input (config files, CLI arguments, a user's policy) and for a job
that ran out of its time."""


class ConfigError(ValueError):
    """A config value or argument is invalid; the message names the key and what is allowed."""


class TimeLimitError(BaseException):
    """A simulation job ran longer than its limit (config key ``simulation_time_limit``).

    Not an ``Exception``: it is raised inside whatever code runs when the limit passes, a user's
    policy included, and a policy's ``except Exception`` must not swallow it."""
