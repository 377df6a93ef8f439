"""A throw-away PostgreSQL server for the tests and the benchmark: Debian's ``initdb`` and ``pg_ctl``.

The cluster lives in a new temporary folder and listens on a Unix socket there only (no TCP port,
so nothing else on the machine can reach it and no port can clash). PostgreSQL refuses to run as
root: as root the cluster belongs to the unprivileged ``nobody`` account, which runs the server;
root connects through the socket. Authentication is ``trust``, which the socket's folder confines
to this machine's root and ``nobody``.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: The socket's name is ``.s.PGSQL.<port>``: any number serves, nothing listens on TCP.
PORT = 5432


def server_bin() -> Path | None:
    """The folder of Debian's PostgreSQL programs (the newest version), or None when not installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


@dataclass
class Cluster:
    """A running throw-away cluster."""

    folder: Path
    bin: Path

    def url(self, database: str = "postgres") -> str:
        """The database's ordinary SQLAlchemy URL (psycopg 3), through the cluster's socket."""
        return f"postgresql://postgres@/{database}?host={self.folder}&port={PORT}"

    def create_database(self, name: str) -> str:
        """Create an empty database; return its URL."""
        import psycopg

        with psycopg.connect(host=str(self.folder), port=PORT, user="postgres", dbname="postgres",
                             autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """Stop the server at once and delete the cluster."""
        _run(self.bin / "pg_ctl", "-D", str(self.folder / "data"), "stop", "-m", "immediate")
        shutil.rmtree(self.folder, ignore_errors=True)


def _as_server_user() -> list[str]:
    return ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []


def _run(*command: str | Path) -> None:
    done = subprocess.run([*_as_server_user(), *map(str, command)], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{Path(str(command[0])).name} failed: {done.stdout}{done.stderr}")


def start_cluster(*, durable: bool = False) -> Cluster:
    """initdb a new cluster in a new temporary folder and start it (a few seconds).

    ``durable=False`` (the tests) skips fsync; the benchmark measures with it, as a course runs.
    """
    bin_folder = server_bin()
    if bin_folder is None:
        raise RuntimeError("PostgreSQL's server is not installed (apt-get install postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="ndcg-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "nobody")
    cluster = Cluster(folder, bin_folder)
    try:
        _run(bin_folder / "initdb", "-D", str(folder / "data"), "-U", "postgres", "--auth=trust",
             "--no-sync", "-E", "UTF8", "--locale=C")
        options = f"-c listen_addresses='' -c unix_socket_directories='{folder}' -p {PORT}" + ("" if durable else " -c fsync=off")
        _run(bin_folder / "pg_ctl", "-D", str(folder / "data"), "-o", options, "-w", "-t", "60",
             "-l", str(folder / "server.log"), "start")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return cluster
