"""The kinds of stop the CLI tells apart.

`InputError` means the user handed us something we cannot use (exit 2, and
nothing on disk was changed); `RunError` means a run started and could not
finish (exit 1, and everything already paid for is on disk); `WaitingForPeople`
means a run did all it could and needs a person's answer or ballot (exit 3,
everything else on disk).
"""


class DiscussError(Exception):
    exit_code = 1


class InputError(DiscussError):
    exit_code = 2


class Busy(InputError):
    """Another process is working on this discussion now."""


class RunError(DiscussError):
    exit_code = 1


class WaitingForPeople(DiscussError):
    exit_code = 3
