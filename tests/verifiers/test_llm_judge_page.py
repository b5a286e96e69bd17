"""The LLM judge on the Verifier page: what works now and where it is set, the claims it
takes (Hebrew included or not), saving with validation, the key kept unsaid, back to the
settings, and a try against a real local chat-completions server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client, override_settings

from grounding_app.llm_judge.models import JudgeConfig, JudgeDay
from tests.llm_judge.chat_server import Step, answer, chat_server

# The views make the process's checker follow what they save: a throwaway checker here,
# so no judge saved by a test outlives it in another test's checks.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_engine")]

FORM = {
    "enabled": "on",
    "url": "http://localhost:11434/v1",
    "model": "qwen3:8b",
    "key": "",
    "low": "0.3",
    "high": "0.8",
    "timeout": "20",
    "concurrency": "2",
    "daily_tokens": "500000",
}


def section(client: Client) -> str:
    page = client.get("/verifiers/").content.decode()
    return page[page.index('id="llm-judge"') : page.index('id="figures-title"')]


def test_no_judge_is_said_and_the_settings_judge_is_shown(admin_client: Client) -> None:
    text = section(admin_client)
    assert "none: every verdict is the verifier" in text
    assert "LLM_JUDGE_URL is unset" in text
    with override_settings(
        LLM_JUDGE_URL="http://vllm:8000/v1", LLM_JUDGE_MODEL="m", LLM_JUDGE_BAND="0.4,0.7"
    ):
        text = section(admin_client)
    assert 'data-judge="settings"' in text and "by the LLM_JUDGE_* settings" in text
    assert "from 0.40 to 0.70" in text
    assert "claims in Hebrew are word-matched, not sent to it" in text
    assert 'value="http://vllm:8000/v1"' in text  # the form starts from what works now


def test_saving_sets_the_judge_every_worker_follows(admin_client: Client, admin: Any) -> None:
    response = admin_client.post(
        "/verifiers/llm-judge/",
        {**FORM, "key": "sk-0123456789abcdefWXYZ", "unread_languages": "on"},
    )
    assert response.status_code == 302
    row = JudgeConfig.objects.get()
    assert (row.url, row.model, row.band, row.concurrency, row.daily_tokens) == (
        "http://localhost:11434/v1",
        "qwen3:8b",
        "0.3,0.8",
        2,
        500000,
    )
    assert row.unread_languages and row.username == admin.get_username()
    text = section(admin_client)
    assert 'data-judge="page"' in text
    assert "and every claim in Hebrew, which the verifier does not read" in text
    assert "sk-0123456789abcdef" not in text and "ending …WXYZ" in text
    assert "2 requests at once per process, 20 s each; 500000 tokens a day" in text
    # A blank key keeps the saved one; "remove" removes it.
    admin_client.post("/verifiers/llm-judge/", {**FORM, "every_claim": "on"})
    row.refresh_from_db()
    assert row.key == "sk-0123456789abcdefWXYZ" and row.band == "all"
    assert "every claim the verifier reads" in section(admin_client)
    admin_client.post("/verifiers/llm-judge/", {**FORM, "clear_key": "on"})
    row.refresh_from_db()
    assert row.key == ""
    # Turned off here, it stays off whatever the settings say.
    admin_client.post("/verifiers/llm-judge/", {**FORM, "enabled": ""})
    with override_settings(LLM_JUDGE_URL="http://vllm:8000/v1"):
        text = section(admin_client)
    assert 'data-judge="off"' in text and "(turned off)" in text


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"url": "javascript:alert(1)"}, "url", "An http:// or https:// URL with a host"),
        ({"url": "http://"}, "url", "An http:// or https:// URL with a host"),
        ({"url": "http://host:99999/v1"}, "url", "Not a URL"),
        ({"url": "http://ho st/v1"}, "url", "no spaces or control characters"),
        ({"url": ""}, "url", "needs its base URL"),
        ({"model": "  "}, "model", "Name the model"),
        ({"low": "0.8", "high": "0.3"}, "high", "at or above where it starts"),
        ({"low": "1.5"}, "low", "less than or equal to 1"),
        ({"daily_tokens": "-1"}, "daily_tokens", "greater than or equal to 0"),
    ],
)
def test_a_bad_form_is_refused_with_its_reason_and_saves_nothing(
    admin_client: Client, change: dict[str, str], field: str, message: str
) -> None:
    response = admin_client.post("/verifiers/llm-judge/", {**FORM, **change})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not JudgeConfig.objects.exists()


def test_back_to_the_settings_forgets_the_saved_judge(admin_client: Client) -> None:
    admin_client.post("/verifiers/llm-judge/", FORM)
    assert JudgeConfig.objects.exists()
    admin_client.post("/verifiers/llm-judge/reset/")
    assert not JudgeConfig.objects.exists()
    assert "none: every verdict is the verifier" in section(admin_client)


@pytest.mark.parametrize(
    ("step", "said"),
    [
        (answer("supported", passage=0), "a well-formed ruling, supported"),
        (Step("I think it is supported."), "not with the JSON object asked for"),
        (Step(status=500), "No usable answer from"),
    ],
)
def test_trying_the_judge_asks_the_endpoint_one_sample_claim(
    admin_client: Client, step: Step, said: str
) -> None:
    with chat_server(step) as server:
        admin_client.post("/verifiers/llm-judge/", {**FORM, "url": server.url})
        response = admin_client.post("/verifiers/llm-judge/try/", follow=True)
    assert said in response.content.decode()
    assert len(server.requests) == 1 and server.requests[0]["model"] == "qwen3:8b"
    day = JudgeDay.objects.get()
    assert day.calls == 1 and day.failures == int(step.status != 200 or "JSON" in said)
    assert "1 call" in section(admin_client)


def test_only_admins_reach_the_judge(make_user: Callable[..., Any]) -> None:
    client = Client()
    client.force_login(make_user("reviewer"))
    for url in (
        "/verifiers/llm-judge/",
        "/verifiers/llm-judge/reset/",
        "/verifiers/llm-judge/try/",
    ):
        assert client.post(url, FORM).status_code == 403
    assert not JudgeConfig.objects.exists()


def test_use_an_llm_judge_is_ticked_only_when_one_is_set(admin_client: Client) -> None:
    box = 'name="enabled" id="id_enabled"'
    text = section(admin_client)
    assert f'type="checkbox" {box}>' in text and f"{box} checked" not in text
    with override_settings(LLM_JUDGE_URL="http://vllm:8000/v1", LLM_JUDGE_MODEL="m"):
        assert f"{box} checked" in section(admin_client)


def test_try_answers_beside_its_button_and_an_unreachable_judge_is_failing(
    admin_client: Client,
) -> None:
    with chat_server(Step(status=500)) as server:
        admin_client.post("/verifiers/llm-judge/", {**FORM, "url": server.url})
        text = section(admin_client)
        assert 'hx-post="/verifiers/llm-judge/try/" hx-target="#judge-try-result"' in text
        assert '<span id="judge-try-result" role="status"' in text
        assert "<dt>Judging now</dt>" in text
        response = admin_client.post("/verifiers/llm-judge/try/", headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 200 and 'data-try="fails"' in html
    assert "No usable answer from" in html
    assert 'id="judge-state" class="judge-state" hx-swap-oob="true"' in html
    assert '<dt class="judge-failing">Failing</dt>' in html
    text = section(admin_client)
    assert "<dt>Judging now</dt>" not in text and 'data-judge-state="failing"' in text
    with chat_server(answer("supported", passage=0)) as server:
        admin_client.post("/verifiers/llm-judge/", {**FORM, "url": server.url})
        response = admin_client.post("/verifiers/llm-judge/try/", headers={"HX-Request": "true"})
    assert 'data-try="works"' in response.content.decode()
    assert 'data-judge-state="set"' in section(admin_client)
