"""What a deployer runs: `scripts/serve` (gunicorn, DJANGO_DEBUG unset, WhiteNoise) in
Debian's chromium, signed in through the real form; the pages must be styled and htmx
must swap, as in debug mode.

gunicorn terminates TLS itself here (a throwaway certificate for localhost), so the
production settings run unchanged: secure cookies, HSTS, the http->https redirect.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.serving import manage, production_environment, served_on

PASSWORD = "production-test-password-7d1f"

# Two users and a labeling project with one item, made with the app's own services
# before the server starts (the server's own migrate then finds nothing to do).
SEED = """
from django.contrib.auth.models import Group, User
from grounding_app.annotations.items import create_project
from grounding_app.common.importing import CheckedItem, ItemSource, ModelClaim
from grounding_app.engine.types import Fact

User.objects.create_superuser("boss", password=PASSWORD)
rita = User.objects.create_user("rita", password=PASSWORD)
for role in ("reviewer", "annotator"):
    rita.groups.add(Group.objects.get(name=role))
answer = "Titanic was directed by James Cameron. It was released in 1997."
fact = Fact("Titanic is a 1997 film directed by James Cameron.", {})
claims = (
    ModelClaim(0, 0, 38, answer[:38], True, "supported", 0.9, (0,)),
    ModelClaim(1, 39, 63, answer[39:], True, "supported", 0.8, (0,)),
)
item = CheckedItem(ItemSource(answer, (fact,), "t1", "demo"), claims)
project = create_project(rita, name="Films", annotators=[rita], items=[item])
print(project.get_absolute_url())
""".replace("PASSWORD", repr(PASSWORD))


@dataclass
class Server:
    base: str
    project_url: str
    log: Path


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    scratch = tmp_path_factory.mktemp("production")
    env = production_environment(scratch)
    env.update(ALLOWED_HOSTS="localhost", PUBLIC_URL="https://localhost")
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
            "-keyout", str(scratch / "key.pem"), "-out", str(scratch / "cert.pem"),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    manage(env, "migrate", "--noinput")
    seeded = manage(env, "shell", "-c", SEED)
    certificate = (f"--certfile={scratch / 'cert.pem'}", f"--keyfile={scratch / 'key.pem'}")
    try:
        with served_on(env, scratch, "--workers=1", *certificate, tls=True, within=240) as served:
            port, log = served
            yield Server(f"https://localhost:{port}", seeded.strip().splitlines()[-1], log)
    finally:
        shutil.rmtree(scratch / "static", ignore_errors=True)


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    context = browser.new_context(ignore_https_errors=True, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(server.base + "/accounts/login/")
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(server.base + "/reviews/")
    yield page
    context.close()
    assert problems == [], f"browser console errors (CSP, missing files): {problems}"


def _styled(page: Page) -> None:
    """The stylesheet applied (unstyled, the page is transparent, the body has a
    margin) and htmx ran."""
    root = "getComputedStyle(document.documentElement)"
    assert page.evaluate(f"{root}.backgroundColor") == "rgb(245, 246, 248)"
    assert page.evaluate("getComputedStyle(document.body).marginTop") == "0px"
    assert page.evaluate("typeof window.htmx") == "object"


def test_static_files_are_hashed_compressed_and_cached(page: Page, server: Server) -> None:
    href = page.locator("head link[rel=stylesheet]").get_attribute("href") or ""
    assert href.startswith("/static/css/workbench.") and href.endswith(".css")
    assert href != "/static/css/workbench.css", "not the hashed name: collectstatic did not run"
    response = page.request.get(server.base + href, headers={"Accept-Encoding": "gzip"})
    assert response.status == 200
    assert response.headers["content-encoding"] == "gzip"
    assert "max-age=315360000" in response.headers["cache-control"]


def test_review_page_is_styled_and_htmx_swaps(page: Page, server: Server) -> None:
    page.goto(server.base + "/reviews/new/")
    _styled(page)
    page.evaluate(
        "document.body.addEventListener('htmx:afterSwap', () => { window.__swapped = true; })"
    )
    page.fill("#id_answer", "Titanic was directed by James Cameron.")
    page.locator(".fact-rows textarea").first.fill(
        "Titanic is a 1997 film written and directed by James Cameron."
    )
    page.get_by_role("button", name="Check answer").click()
    # The server's first check loads the models (and, on a fresh clone, quantises their
    # graphs): seconds, not the 5 s an assertion waits by default.
    expect(page.locator("#result .claim-row").first).to_be_visible(timeout=60_000)
    # A full post would have navigated away and lost the flag; htmx swapped in place.
    assert page.evaluate("window.__swapped") is True
    assert "/reviews/" in page.url
    _styled(page)


def test_labeling_page_is_styled_and_scripted(page: Page, server: Server) -> None:
    page.goto(server.base + server.project_url)
    _styled(page)
    page.get_by_role("button", name="Start labeling").click()
    page.wait_for_selector(".claim-card.is-focused")
    _styled(page)
