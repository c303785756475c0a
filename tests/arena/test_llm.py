"""``llm:`` agents against a scripted OpenAI-compatible endpoint on 127.0.0.1 (no network).

The endpoint (tests/arena/llm_endpoint.py) answers from a script — bare JSON, fenced JSON, JSON
in prose, lowercase promotion, an illegal move then a legal one, a wrong claim, an offer,
resignation, 429 with Retry-After, 500, a hang, a malformed body, a huge body, 401 — and plays
legal moves when the script is spent. Whole games and CLI matches run for chess and Enochian;
the ``usage`` of the results equals what the endpoint saw and said; the key never reaches a file
or stderr.
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from enoch._json import extract_one_object
from enoch.arena.llm import LlmPlayer, parse_spec
from enoch.arena.match import MatchOutcome, ScheduledGame, network_bound
from enoch.arena.players import make_player
from enoch.arena.referee import GameConfig, GameResult, play_game
from enoch.arena.schema import events_schema
from enoch.cli import main
from enoch.errors import AgentSetupError, InputError, ProtocolError
from enoch.game.api import Start
from enoch.game.registry import find_game
from tests.arena.llm_endpoint import Endpoint, Step

ROOT = Path(__file__).resolve().parents[2]
VALIDATOR = jsonschema.Draft202012Validator(events_schema())
KEY_ENV = "ENOCH_TEST_LLM_KEY"
SECRET = "sk-test-9f8e7d6c5b4a-never-log-me"
# a position where White promotes with b7b8 (and Black's king is far away)
PROMO_FEN = "8/1P6/8/8/8/8/6k1/4K3 w - - 0 1"


def llm(ep: Endpoint, **opts: str) -> str:
    query = "&".join(
        [f"base_url={ep.base_url}", "views=none", *(f"{k}={v}" for k, v in opts.items())]
    )
    return f"llm:test-model?{query}"


def play(
    agent: str,
    variant: str = "chess",
    *,
    retries: int = 0,
    timeout: float = 10.0,
    lenient: bool = False,
    fen: str | None = None,
    max_plies: int = 20,
) -> tuple[GameResult, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    result = play_game(
        agent,
        "builtin:random",
        variant=variant,
        start_fen=fen,
        max_plies=max_plies,
        log=events.append,
        config=GameConfig(timeout=timeout, retries=retries, lenient=lenient),
    )
    for event in events:
        VALIDATOR.validate(json.loads(json.dumps(event)))
    return result, events


def answers(events: list[dict[str, Any]], seat: int = 0) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == "answer" and e["player"] == seat]


def check_usage(result: GameResult, ep: Endpoint, seat: int = 0) -> None:
    usage = result.to_json()["usage"][seat]
    assert usage["requests"] == ep.requests
    # null: the endpoint reported no tokens (no completion came back)
    assert (usage["prompt_tokens"] or 0, usage["completion_tokens"] or 0) == ep.tokens()


# ---------------------------------------------------------------------- extraction


def test_extract_one_object() -> None:
    move = '{"from": "e2", "to": "e4", "promotion": null}'
    assert extract_one_object(move) == move
    assert json.loads(extract_one_object(f"Sure.\n```json\n{move}\n```\nGood luck")) == json.loads(
        move
    )
    assert extract_one_object(f"I play {move}, as planned: {move}") == move  # the same twice
    nested = '{"action": "claim_draw", "reason": "threefold_repetition", "x": {"y": 1}}'
    assert extract_one_object(f"claim: {nested}") == nested
    with pytest.raises(ProtocolError, match="no JSON object"):
        extract_one_object("I play Nf3")
    with pytest.raises(ProtocolError, match="2 different JSON objects"):
        extract_one_object(f'{move} or maybe {{"from": "d2", "to": "d4", "promotion": null}}')
    with pytest.raises(ProtocolError, match="no JSON object"):
        extract_one_object("{" * 5000)


# ---------------------------------------------------------------------- answers


@pytest.mark.parametrize("style", ["bare", "fenced", "prose"])
@pytest.mark.parametrize("variant", ["chess", "enochian"])
def test_whole_game_in_every_style(style: str, variant: str) -> None:
    with Endpoint(style=style, variant=variant) as ep:
        result, events = play(llm(ep), variant)
    assert result.termination == "move_limit", result.reason
    check_usage(result, ep)
    mine = answers(events)
    assert len(mine) == ep.requests
    # the model's whole text goes to the log, the extracted object is the answer
    assert all(e["llm"]["text"].count(e["raw"]) >= 1 for e in mine)
    if style != "bare":
        assert all(e["llm"]["text"] != e["raw"] for e in mine)
    # the conversation: the rulebook as system prompt, the state as the user message
    body = ep.seen[0].body
    assert body["model"] == "test-model"
    assert body["messages"][0]["role"] == "system"
    assert body["messages"][0]["content"].startswith(find_game(variant).rulebook().rstrip())
    state = json.loads(body["messages"][1]["content"].split("state:\n", 1)[1])
    assert state == next(e for e in events if e["event"] == "state")["state"]


def test_views_are_labelled_after_the_state() -> None:
    with Endpoint() as ep:
        spec = llm(ep).replace("views=none", "views=fen,legal,history")
        play(spec, max_plies=4)
    content = ep.seen[1].body["messages"][1]["content"]
    state_part, rest = content.split("\n\nfen:\n", 1)
    assert state_part.startswith("state:\n{")
    assert "\n\nlegal:\n" in rest and "\n\nhistory:\n1. " in rest
    assert "ascii:" not in content


def test_options_reach_the_endpoint() -> None:
    with Endpoint() as ep:
        spec = llm(ep, temperature="0.2", max_tokens="300", seed="7", json="object")
        play(spec, max_plies=2)
    body = ep.seen[0].body
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.2, 300, 7)
    assert body["response_format"] == {"type": "json_object"}
    with Endpoint() as ep:
        play(llm(ep, json="schema"), max_plies=2)
    schema = ep.seen[0].body["response_format"]["json_schema"]["schema"]
    original = find_game("chess").answer_schema()
    assert original is not None
    assert schema["type"] == "object" and "$schema" not in schema
    assert schema["anyOf"] == original["oneOf"]
    # the same answers are valid under both
    validator = jsonschema.Draft202012Validator(schema)
    for answer in ({"from": "e2", "to": "e4", "promotion": None}, {"action": "resign"}):
        assert validator.is_valid(answer)
    assert not validator.is_valid({"from": "e2", "to": "e4"})


def test_lowercase_promotion_strict_and_lenient() -> None:
    lower = '{"from": "b7", "to": "b8", "promotion": "q"}'
    with Endpoint([Step(text=lower)]) as ep:
        result, _ = play(llm(ep), fen=PROMO_FEN)
    assert result.termination == "invalid_answer"
    assert result.to_json()["usage"][0]["invalid"] == 1
    with Endpoint([Step(text=f"Promote! {lower}")]) as ep:
        result, _ = play(llm(ep), fen=PROMO_FEN, lenient=True, max_plies=2)
    assert result.moves[0] == "b7b8q"


def test_san_text_is_invalid_then_corrected() -> None:
    with Endpoint([Step(text="I play Nf3.")]) as ep:
        result, _events = play(llm(ep), retries=1, max_plies=2)
    assert result.termination == "move_limit"
    usage = result.to_json()["usage"][0]
    assert (usage["invalid"], usage["retries"], usage["requests"]) == (1, 1, 2)
    retry = ep.seen[1].body["messages"]
    assert retry[2] == {"role": "assistant", "content": "I play Nf3."}
    assert "the model's text contains no JSON object" in retry[3]["content"]


def test_san_object_is_refused_by_the_schema() -> None:
    with Endpoint([Step(text='{"move": "Nf3"}')]) as ep:
        result, _ = play(llm(ep), retries=1, max_plies=2)
    assert result.termination == "move_limit"
    assert result.to_json()["usage"][0]["invalid"] == 1
    refusal = ep.seen[1].body["messages"][3]["content"]
    assert refusal.startswith("The referee refused your answer: ")
    assert json.loads(refusal.split("state:\n", 1)[1])["last_error"] in refusal


def test_enochian_illegal_then_legal() -> None:
    illegal = '{"from": "d4", "to": "d5", "promotion": null}'  # d4 is empty at the start
    with Endpoint([Step(text=illegal)], variant="enochian") as ep:
        result, _ = play(llm(ep), "enochian", retries=1, max_plies=2)
    assert result.termination == "move_limit", result.reason
    usage = result.to_json()["usage"][0]
    assert (usage["illegal"], usage["retries"]) == (1, 1)
    assert "d4-d5 is not a legal move" in ep.seen[1].body["messages"][3]["content"]


def test_illegal_then_legal_after_the_refusal() -> None:
    illegal = '{"from": "e2", "to": "e5", "promotion": null}'
    with Endpoint([Step(text=f"My move: {illegal}")]) as ep:
        result, _events = play(llm(ep), retries=1, max_plies=2)
    assert result.termination == "move_limit", result.reason
    usage = result.to_json()["usage"][0]
    assert (usage["illegal"], usage["retries"], usage["requests"]) == (1, 1, 2)
    messages = ep.seen[1].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == f"My move: {illegal}"
    refusal = messages[3]["content"]
    assert "The referee refused your answer: illegal move e2e5" in refusal
    state = json.loads(refusal.split("state:\n", 1)[1])
    assert state["last_error"].startswith("illegal move e2e5")
    # without retries the same answer forfeits
    with Endpoint([Step(text=illegal)]) as ep:
        result, _ = play(llm(ep))
    assert (result.termination, result.result) == ("illegal_move", "0-1")


def test_wrong_claim_is_explained_then_answered() -> None:
    claim = '{"action": "claim_draw", "reason": "fifty_move_rule"}'
    with Endpoint([Step(text=claim)]) as ep:
        result, _events = play(llm(ep), max_plies=2)
    assert result.termination == "move_limit"
    assert result.to_json()["usage"][0]["retries"] == 1
    refusal = ep.seen[1].body["messages"][3]["content"]
    assert "The referee refused your answer" in refusal and "fifty" in refusal
    with Endpoint([Step(text=claim), Step(text=claim)]) as ep:
        result, _ = play(llm(ep))
    assert result.termination == "invalid_answer"


def test_offer_then_move_and_resignation() -> None:
    with Endpoint([Step(text='{"action": "offer_draw"}')]) as ep:
        result, events = play(llm(ep), max_plies=2)
    assert [e["decision"] for e in events if e["event"] == "decision"][:2] == [
        "draw_offered",
        "move",
    ]
    second = ep.seen[1].body["messages"]
    assert len(second) == 2  # an in-turn action: a new conversation with the new state
    assert json.loads(second[1]["content"].split("state:\n", 1)[1])["draw_offer"] == "white"
    with Endpoint([Step(text='I resign. {"action": "resign"}')]) as ep:
        result, _ = play(llm(ep))
    assert (result.termination, result.result) == ("resignation", "0-1")


def test_reasoning_text_goes_to_the_log_only() -> None:
    with Endpoint([Step(text="{move}", reasoning="I considered 1. e4 {not JSON}")]) as ep:
        _, events = play(llm(ep), max_plies=1)
    first = answers(events)[0]
    assert first["llm"]["reasoning"] == "I considered 1. e4 {not JSON}"
    assert "considered" not in first["raw"]


# ---------------------------------------------------------------------- endpoint failures


def test_429_honours_retry_after() -> None:
    with Endpoint([Step(status=429, headers={"Retry-After": "1"})]) as ep:
        t0 = time.monotonic()
        result, events = play(llm(ep), max_plies=1)
        waited = time.monotonic() - t0
    assert result.termination == "move_limit"
    assert waited >= 1.0
    check_usage(result, ep)
    assert ep.requests == 2
    assert answers(events)[0]["llm"]["errors"][0].startswith("HTTP 429")


def test_500_is_retried_and_counted() -> None:
    with Endpoint([Step(status=500), Step(status=503)]) as ep:
        result, _ = play(llm(ep), max_plies=1)
    assert result.termination == "move_limit"
    check_usage(result, ep)
    assert result.to_json()["usage"][0]["requests"] == 3


def test_endpoint_down_abandons_the_game() -> None:
    with Endpoint([Step(status=503)] * 50) as ep:
        result, events = play(llm(ep), timeout=1.0)
    assert (result.termination, result.result, result.winner) == ("abandoned", "*", None)
    check_usage(result, ep)
    assert answers(events)[-1]["kind"] == "abandoned"
    # nothing listens at all: abandoned too
    with Endpoint() as ep:
        url = ep.base_url
    result, _ = play(f"llm:m?base_url={url}&views=none", timeout=0.8)
    assert result.termination == "abandoned"
    assert result.to_json()["usage"][0]["requests"] == 0


def test_cli_match_names_the_abandoned_games(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with Endpoint([Step(status=503)] * 100) as ep:
        code = main(
            ["match", llm(ep), "builtin:random", "--games", "1", "--fen", "startpos",
             "--timeout", "0.6", "--results", str(tmp_path / "r.jsonl")]
        )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "abandoned 1" in out and "abandoned (the endpoint stayed down; not rated): game 1" in out
    line = json.loads((tmp_path / "r.jsonl").read_text())
    assert (line["result"], line["winner"], line["termination"]) == ("*", None, "abandoned")


def test_a_hang_after_failures_is_abandoned_not_a_timeout() -> None:
    with Endpoint([Step(status=502), Step(hang=3.0)]) as ep:
        result, _ = play(llm(ep), timeout=1.5)
    assert result.termination == "abandoned", result.reason
    assert ep.requests == 2


def test_malformed_body_is_the_endpoint_failure() -> None:
    with Endpoint([Step(raw=b"<html>bad gateway</html>"), Step(raw=b'{"choices": []}')]) as ep:
        result, events = play(llm(ep), max_plies=1)
    assert result.termination == "move_limit"
    assert ep.requests == 3
    assert "not a chat completion" in answers(events)[0]["llm"]["errors"][0]


def test_hang_past_the_deadline_is_a_timeout() -> None:
    with Endpoint([Step(hang=3.0)]) as ep:
        t0 = time.monotonic()
        result, _ = play(llm(ep), timeout=0.6)
        took = time.monotonic() - t0
    assert result.termination == "timeout"
    assert took < 2.5


def test_own_timeout_retries_a_hung_request() -> None:
    # generous margins: on a loaded machine an ordinary answer may take a good part of a second
    with Endpoint([Step(hang=4.0)]) as ep:
        result, events = play(llm(ep, timeout="1"), timeout=15.0, max_plies=1)
    assert result.termination == "move_limit", result.reason
    assert "no reply within timeout=1 s" in answers(events)[0]["llm"]["errors"][0]
    assert ep.requests == 2


def test_huge_body_is_an_oversize_answer() -> None:
    with Endpoint([Step(huge=2_000_000)]) as ep:
        result, _ = play(llm(ep))
    assert result.termination == "invalid_answer"
    assert "exceeds" in result.reason


@pytest.mark.parametrize("status", [401, 403])
def test_rejected_key_is_an_input_error(status: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {SECRET}"}}).encode()
    with Endpoint([Step(status=status, body=body)]) as ep, pytest.raises(AgentSetupError) as info:
        play(llm(ep, api_key_env=KEY_ENV))
    message = str(info.value)
    assert f"HTTP {status}" in message and KEY_ENV in message
    assert SECRET not in message
    assert ep.seen[0].authorization == f"Bearer {SECRET}"


# ---------------------------------------------------------------------- the spec


def test_spec_errors(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with pytest.raises(InputError, match="not set"):
        parse_spec(f"llm:m?api_key_env={KEY_ENV}")
    with pytest.raises(InputError, match="never put a key"):
        parse_spec("llm:m?api_key=sk-123")
    with pytest.raises(InputError, match="must not hold credentials") as info:
        parse_spec("llm:m?base_url=https://user:hunter2@api.example.org/v1")
    assert "hunter2" not in str(info.value)
    with pytest.raises(InputError, match="unknown option"):
        parse_spec("llm:m?temprature=1")
    with pytest.raises(InputError, match="model name is empty"):
        parse_spec("llm:?base_url=http://127.0.0.1:1")
    with pytest.raises(InputError, match="json="):
        parse_spec("llm:m?json=yes")
    with pytest.raises(InputError, match="price="):
        parse_spec("llm:m?price=3")
    with pytest.raises(InputError, match="system="):
        parse_spec(f"llm:m?system={tmp_path / 'missing.txt'}")
    with pytest.raises(InputError, match="no view"):
        make_player("llm:m?base_url=http://127.0.0.1:1&views=ascii", find_game("enochian"))
    monkeypatch.setenv(KEY_ENV, SECRET)
    insecure = f"llm:m?base_url=http://example.org/v1&api_key_env={KEY_ENV}"
    with pytest.raises(InputError, match="unencrypted") as info:
        parse_spec(insecure)
    assert SECRET not in str(info.value)
    assert parse_spec(insecure, allow_insecure=True).base_url == "http://example.org/v1"
    assert parse_spec(f"llm:m?base_url=http://127.0.0.1:9/v1&api_key_env={KEY_ENV}").model == "m"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
    assert parse_spec("llm:m").base_url == "http://localhost:11434/v1"


def test_system_file_replaces_the_rulebook(tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("You are a careful chess player.", encoding="utf-8")
    with Endpoint() as ep:
        play(llm(ep, system=str(prompt)), max_plies=1)
    assert ep.seen[0].body["messages"][0]["content"] == "You are a careful chess player."


def test_price_gives_a_cost() -> None:
    with Endpoint() as ep:
        result, _ = play(llm(ep, price="2.5,10"), max_plies=4)
    usage = result.to_json()["usage"][0]
    prompt, completion = ep.tokens()
    assert usage["cost"] == pytest.approx((prompt * 2.5 + completion * 10) / 1e6)
    other = result.to_json()["usage"][1]
    assert other["prompt_tokens"] is None and other["cost"] is None
    assert other["requests"] == 2


def test_a_player_object_is_closed_and_counts_per_game() -> None:
    with Endpoint() as ep:
        player = make_player(llm(ep), find_game("chess"))
        assert isinstance(player, LlmPlayer)
        play_game(player, "builtin:random", max_plies=2, close=False)
        result = play_game(player, "builtin:random", max_plies=2)
    assert result.to_json()["usage"][0]["requests"] == 1  # this game's only


# ---------------------------------------------------------------------- the CLI


@pytest.mark.parametrize("variant", ["chess", "enochian"])
def test_cli_match_usage_equals_the_endpoint(
    variant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "r.jsonl"
    with Endpoint(style="fenced", variant=variant) as ep:
        code = main(
            [
                "match",
                llm(ep),
                "builtin:random",
                "--variant",
                variant,
                "--games",
                "4",
                "--concurrency",
                "4",
                "--max-plies",
                "16",
                "--results",
                str(results),
                "--log-dir",
                str(tmp_path / "logs"),
            ]
        )
    assert code == 0, capsys.readouterr().err
    lines = [json.loads(x) for x in results.read_text().splitlines()]
    assert len(lines) == 4
    requests = prompt = completion = 0
    for line in lines:
        seat = line["seats"].index(next(s for s in line["seats"] if s.startswith("llm:")))
        usage = line["usage"][seat]
        requests += usage["requests"]
        prompt += usage["prompt_tokens"]
        completion += usage["completion_tokens"]
        assert set(usage) == {
            "requests",
            "retries",
            "illegal",
            "invalid",
            "prompt_tokens",
            "completion_tokens",
            "seconds",
            "cost",
        }
    assert requests == ep.requests
    assert (prompt, completion) == ep.tokens()
    out = capsys.readouterr().out
    assert f"{requests} requests, 0 retries, {prompt} prompt + {completion} completion" in out
    for log in (tmp_path / "logs").iterdir():
        for text in log.read_text().splitlines():
            VALIDATOR.validate(json.loads(text))


def test_cli_unset_key_variable_is_exit_2_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with Endpoint() as ep:
        code = main(["match", llm(ep, api_key_env=KEY_ENV), "builtin:random", "--games", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and f"api_key_env={KEY_ENV}" in err
    assert ep.requests == 0


def test_cli_rejected_key_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    with Endpoint([Step(status=401)]) as ep:
        code = main(["play", llm(ep, api_key_env=KEY_ENV), "builtin:random", "--quiet"])
    captured = capsys.readouterr()
    assert code == 2
    assert "refused the API key (HTTP 401)" in captured.err
    assert captured.err.count("\n") == 1


def test_the_key_never_reaches_a_file_or_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The endpoint echoes the key in its error bodies (some do); it is scrubbed everywhere."""
    monkeypatch.setenv(KEY_ENV, SECRET)
    echo = json.dumps({"error": {"message": f"overloaded for key {SECRET}"}}).encode()
    script = [Step(status=500, body=echo), Step(text=f"my key is {SECRET}? " + "{move}")]
    out = tmp_path / "out"
    out.mkdir()
    with Endpoint(script) as ep:
        code = main(
            [
                "match",
                llm(ep, api_key_env=KEY_ENV),
                "builtin:random",
                "--games",
                "2",
                "--fen",
                "startpos",
                "--max-plies",
                "4",
                "--results",
                str(out / "r.jsonl"),
                "--record",
                str(out / "g.pgn"),
                "--log-dir",
                str(out / "logs"),
            ]
        )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert all(s.authorization == f"Bearer {SECRET}" for s in ep.seen)
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) == 4
    assert SECRET not in captured.err and SECRET not in captured.out
    for path in files:
        assert SECRET not in path.read_text(), path
    # the model itself wrote the key (it cannot know it, but a prompt could leak it): the
    # log keeps the model's text as is except for the key
    log = (out / "logs" / "game-0001.jsonl").read_text()
    assert "[key]" in log


def test_cli_rulebook(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rulebook"]) == 0
    assert capsys.readouterr().out == (ROOT / "docs" / "rulebook.md").read_text()
    assert main(["rulebook", "--variant", "enochian"]) == 0
    assert capsys.readouterr().out == (ROOT / "docs" / "rulebook-enochian.md").read_text()


@pytest.mark.parametrize(
    ("doc", "package"),
    [
        ("docs/rulebook.md", "src/enoch/fide/rulebook.md"),
        ("docs/rulebook-enochian.md", "src/enoch/enochian/rulebook.md"),
    ],
)
def test_rulebook_docs_and_package_agree(doc: str, package: str) -> None:
    assert (ROOT / doc).read_text() == (ROOT / package).read_text()


# ---------------------------------------------------------------------- matches


def test_abandoned_games_are_not_rated() -> None:
    def result(termination: str, points: list[float]) -> GameResult:
        return GameResult("chess", ["a", "b"], "*", termination, "", None, points, [])

    outcome = MatchOutcome(["a", "b"])
    outcome.games.append((ScheduledGame(1, (0, 1), Start("x")), result("checkmate", [1.0, 0.0])))
    outcome.games.append((ScheduledGame(2, (1, 0), Start("x")), result("abandoned", [0.5, 0.5])))
    score = outcome.score(0)
    assert (score.wins, score.draws, score.losses) == (1, 0, 0)
    from enoch.arena.match import pairwise_games

    assert pairwise_games(outcome) == [(0, 1, 1.0)]


def test_rpm_is_shared_by_the_games_of_a_run(tmp_path: Path) -> None:
    """Two games at once (threads) against one endpoint at rpm=300: requests 0.2 s apart."""
    results = tmp_path / "r.jsonl"
    with Endpoint() as ep:
        spec = llm(ep, rpm="300")
        code = main(
            [
                "match",
                spec,
                spec,
                "--games",
                "2",
                "--concurrency",
                "2",
                "--fen",
                "startpos",
                "--max-plies",
                "4",
                "--results",
                str(results),
            ]
        )
    assert code == 0
    times = sorted(s.at for s in ep.seen)
    assert len(times) == 8
    # each request takes the next slot, 0.2 s after the one before: 8 requests span 1.4 s or
    # more (without the limit they take milliseconds); arrival gaps may jitter on a busy host
    assert times[-1] - times[0] >= 1.35, times
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert sorted(gaps)[len(gaps) // 2] >= 0.15, gaps


def test_four_seat_enochian_usage_is_aligned_with_seats() -> None:
    with Endpoint(variant="enochian") as ep:
        agents = [llm(ep), "builtin:random", llm(ep), "builtin:random"]
        result = play_game(
            *agents,
            variant="enochian",
            options={"players": 4},
            max_plies=12,
            config=GameConfig(timeout=10),
        )
    usage = result.to_json()["usage"]
    assert len(usage) == len(result.seats) == 4
    assert usage[0]["requests"] + usage[2]["requests"] == ep.requests
    assert usage[1]["prompt_tokens"] is None and usage[3]["prompt_tokens"] is None
    assert usage[0]["requests"] >= 2 and usage[2]["requests"] >= 2


def test_concurrent_match_with_a_rejected_key_is_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    with Endpoint([Step(status=401)] * 8) as ep:
        spec = llm(ep, api_key_env=KEY_ENV)
        code = main(["match", spec, "builtin:random", "--games", "4", "--concurrency", "4"])
    err = capsys.readouterr().err
    assert code == 2
    assert "refused the API key" in err and SECRET not in err


def test_a_network_bound_match_runs_in_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    import enoch.arena.backends as backends
    import enoch.arena.match as match

    def no_processes(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a network-bound match started worker processes")

    monkeypatch.setattr(backends, "LocalProcesses", no_processes)
    with Endpoint() as ep:
        outcome = match.run_match(
            llm(ep),
            "builtin:random",
            setup=find_game("chess").setup({"fen": "startpos"}, max_plies=4),
            games=4,
            concurrency=4,
        )
    assert [r.termination for _, r in outcome.games] == ["move_limit"] * 4
    assert ep.requests == 8


def test_retry_after_as_a_number_or_a_date() -> None:
    from email.utils import formatdate

    from enoch.arena.llm import _retry_after

    assert _retry_after({"retry-after": "2.5"}) == 2.5
    later = _retry_after({"retry-after": formatdate(time.time() + 30, usegmt=True)})
    assert later is not None and 25 < later <= 31
    assert _retry_after({"retry-after": "soon"}) is None
    assert _retry_after({}) is None


def test_network_bound_matches_use_threads() -> None:
    assert network_bound(["llm:m", "builtin:random"])
    assert network_bound(["llm:m", "https://example.org/agent"])
    assert not network_bound(["llm:m", "builtin:engine"])
    assert not network_bound(["builtin:random", "builtin:random"])
    assert not network_bound(["llm:m", object()])
