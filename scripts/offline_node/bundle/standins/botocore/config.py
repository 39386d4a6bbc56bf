"""Stand-in for botocore.config (offline bundle)."""


class Config:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("botocore is not in this offline bundle (a stand-in): `pip install boto3`")
