"""The one error type of the capture helper."""


class CaptureError(Exception):
    """A capture that cannot be made as asked (bad settings, a device that is missing, an output folder
    that already holds another capture). The message says what to change."""
