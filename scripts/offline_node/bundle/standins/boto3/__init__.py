"""Stand-in for boto3 (offline bundle): flair imports it at start-up; only its S3 downloads call it."""


def _missing(*args, **kwargs):
    raise RuntimeError("boto3 is not in this offline bundle (a stand-in): S3 downloads need `pip install boto3`")


resource = client = Session = _missing
