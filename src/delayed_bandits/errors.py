"""The error types for bad user input (config files, CLI arguments, a user's policy), for a job
that ran out of its time, and for a command's check that failed."""


class ConfigError(ValueError):
    """A config value or argument is invalid; the message names the key and what is allowed."""


class MissingParameter(ConfigError):
    """A parameter that a setting or an entrant needs was not given; the message names it."""


class BadParameter(ConfigError):
    """A parameter has a value that is not allowed; the message names it and what is allowed."""


class TimeLimitError(BaseException):
    """A simulation job ran longer than its limit (config key ``simulation_time_limit``).

    Not an ``Exception``: it is raised inside whatever code runs when the limit passes, a user's
    policy included, and a policy's ``except Exception`` must not swallow it."""


class VerifyFailed(Exception):
    """A command's check failed (exit code 1): ``verify`` found a file that does not match its
    record, ``replay`` a kernel that does not take its reference's actions, or ``quote`` a number
    of the docs that is not the digest's."""


class KernelInputError(ConfigError):
    """A compiled kernel was handed inputs outside its declared preconditions
    (``preconditions``): the message names the kernel, the argument and what is allowed. Raised
    before the kernel runs, since compiled code does not check its indices and would corrupt
    memory instead."""


class NotApplicable(KernelInputError):
    """An algorithm or entrant was asked to run on a setting its model does not cover
    (``Algorithm.applies``; its kernel could read past its arrays there): the message names it
    and why. Callers play an algorithm only where it applies."""


class OutputWriteError(OSError):
    """Writing an output failed (a full disk, a file-size limit, a read-only folder, ...): the
    message names the file and the errno. An ``OSError`` still, so that callers that handle one
    keep doing so."""
