"""moto's S3 server on 127.0.0.1 (a real S3 API over HTTP, through s3fs) for the
scale-out tests: one bucket, the s3fs options that reach it, and a prefix read back
as a local folder so the same checks apply."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BUCKET = "sitemaps"


def moto_s3() -> Iterator[tuple[Any, dict[str, Any]]]:
    """(s3fs file system, storage_options) while the server runs: a fixture's body."""
    from moto.server import ThreadedMotoServer

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    options = {"key": "testing", "secret": "testing",
               "client_kwargs": {"endpoint_url": f"http://127.0.0.1:{port}",
                                 "region_name": "us-east-1"}}
    import boto3
    import s3fs

    boto3.client("s3", endpoint_url=options["client_kwargs"]["endpoint_url"],
                 region_name="us-east-1", aws_access_key_id="testing",
                 aws_secret_access_key="testing").create_bucket(Bucket=BUCKET)
    try:
        yield s3fs.S3FileSystem(**options), options
    finally:
        server.stop()


def download(fs: Any, prefix: str, tmp_path: Path) -> Path:
    """The bucket prefix as a local folder, to read it back with the same checks."""
    local = tmp_path / "copy"
    local.mkdir(exist_ok=True)
    for old in local.iterdir():
        old.unlink()
    fs.invalidate_cache()
    for key in fs.ls(f"{BUCKET}/{prefix}", detail=False):
        (local / key.rsplit("/", 1)[1]).write_bytes(fs.cat_file(key))
    return local
