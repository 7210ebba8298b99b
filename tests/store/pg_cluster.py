#!/usr/bin/env python3
"""pg_cluster.py — a throwaway PostgreSQL cluster for the store's tests.

    with Cluster() as pg:          # initdb in a temporary directory, started
        url = pg.new_store_url()   # a fresh database: postgresql:///db1?host=...
        ...
    # stopped (pg_ctl stop -m fast), the directory removed

The server listens on a Unix socket in the temporary directory only (no TCP
port), trusts local connections, and runs as an unprivileged user: initdb
refuses root, and CI runs as root, so a root caller runs the server as
`nobody` through runuser. Cluster.missing() says why no cluster can be made
here (no PostgreSQL server binaries), for a test to print as its skip reason;
scripts/install-deps.sh installs Debian's postgresql.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile

SERVER_USER = "nobody"


def bin_dir() -> str | None:
    """The directory of initdb and pg_ctl: Debian keeps them out of PATH."""
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True):
        if os.access(os.path.join(d, "initdb"), os.X_OK) and os.access(os.path.join(d, "pg_ctl"), os.X_OK):
            return d
    found = shutil.which("initdb")
    return os.path.dirname(os.path.realpath(found)) if found and shutil.which("pg_ctl") else None


class Cluster:
    def __init__(self) -> None:
        self.bin = bin_dir()
        self.dir = ""
        self.databases = 0

    @staticmethod
    def missing() -> str | None:
        if not bin_dir():
            return "no PostgreSQL server binaries (initdb, pg_ctl); scripts/install-deps.sh installs Debian's postgresql"
        if os.geteuid() == 0 and not shutil.which("runuser"):
            return "running as root without runuser: the server must run as an unprivileged user"
        return None

    def _as_server(self, args: list[str], **kw) -> subprocess.CompletedProcess:
        cmd = [os.path.join(self.bin, args[0]), *args[1:]]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", SERVER_USER, "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, **kw)

    def __enter__(self) -> "Cluster":
        self.dir = tempfile.mkdtemp(prefix="mcpp-pg-")
        os.chmod(self.dir, 0o755)
        if os.geteuid() == 0:
            shutil.chown(self.dir, SERVER_USER)
        data = os.path.join(self.dir, "data")
        init = self._as_server(["initdb", "-D", data, "-A", "trust", "-U", "mcpp", "-E", "UTF8", "--no-locale",
                                "--no-sync"], timeout=120)
        if init.returncode != 0:
            self._remove()
            raise RuntimeError(f"initdb failed: {init.stderr.strip()[-500:]}")
        opts = f"-k {self.dir} -c listen_addresses='' -c max_connections=40"
        start = self._as_server(["pg_ctl", "-D", data, "-l", os.path.join(self.dir, "server.log"), "-o", opts, "-w",
                                 "start"], timeout=120)
        if start.returncode != 0:
            log = open(os.path.join(self.dir, "server.log"), encoding="utf-8", errors="replace").read()[-800:]
            self._remove()
            raise RuntimeError(f"pg_ctl start failed: {start.stderr.strip()} {log}")
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql:///{database}?host={self.dir}&user=mcpp"

    def psql(self, database: str, sql: str) -> str:
        """Runs SQL through psql (the test's view of the tables, not the library's)."""
        out = subprocess.run([os.path.join(self.bin, "psql"), "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-h",
                              self.dir, "-U", "mcpp", "-d", database, "-c", sql],
                             capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise RuntimeError(f"psql: {out.stderr.strip()}")
        return out.stdout.strip()

    def new_database(self) -> str:
        self.databases += 1
        name = f"store{self.databases}"
        self.psql("postgres", f"CREATE DATABASE {name}")
        return name

    def new_store_url(self) -> str:
        return self.url(self.new_database())

    def _remove(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def __exit__(self, *exc) -> None:
        self._as_server(["pg_ctl", "-D", os.path.join(self.dir, "data"), "-m", "fast", "-w", "stop"], timeout=120)
        self._remove()
