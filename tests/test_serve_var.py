"""`scripts/serve` makes `var/` its owner's alone (0700), as docs/operations.md says,
whatever the umask, and puts right a `var/` made before with the umask's 0755."""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.serving import ROOT


@pytest.mark.parametrize("existing", [False, True])
def test_serve_makes_var_owner_only(tmp_path: Path, existing: bool) -> None:
    # The script up to the point where it needs the app: a bootstrap that does nothing,
    # the real interpreter for the secret key, and no manage.py, so it stops at migrate.
    (tmp_path / "scripts").mkdir()
    shutil.copy2(ROOT / "scripts" / "serve", tmp_path / "scripts" / "serve")
    bootstrap = tmp_path / "scripts" / "bootstrap"
    bootstrap.write_text("#!/usr/bin/env bash\nexit 0\n")
    bootstrap.chmod(0o755)
    (tmp_path / ".venv").symlink_to((ROOT / ".venv").resolve())
    if existing:
        (tmp_path / "var").mkdir(mode=0o755)
        (tmp_path / "var").chmod(0o755)
    result = subprocess.run(
        ["bash", "-c", "umask 022; exec scripts/serve"],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0 and "manage.py" in result.stderr  # stopped where planned
    assert stat.S_IMODE((tmp_path / "var").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "var" / "secret_key").stat().st_mode) == 0o600
