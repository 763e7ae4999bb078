"""`discuss doctor`: what would fail, found before any call is paid for."""

import socket

from conftest import OFFLINE_PANEL, fake_panel


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rows(out: str) -> dict[str, str]:
    """Each member's row of doctor's table, with the notes that write out its longer findings."""
    lines = out.splitlines()
    found = {line.split()[1]: line for line in lines[2:] if line and not line.startswith("[note")}
    for line in lines:
        if line.startswith("[note"):
            found[line.split("] ", 1)[1].split()[0].split("/")[1]] += " " + line
    return found


def test_doctor_passes_a_healthy_panel(project, fake):
    project.write_panels(fake_panel(fake.url), OFFLINE_PANEL)
    result = project.cli("doctor")
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.stdout.splitlines()[2:]]
    assert not any(line.startswith("[note") for line in result.stdout.splitlines())  # every finding fits its cell
    assert {(r[0], r[1]) for r in rows} == {("fake", "alpha"), ("fake", "beta"), ("fake", "gamma"),
                                            ("offline", "pragmatist"), ("offline", "skeptic"), ("offline", "visionary")}
    assert all("ok" in line for line in result.stdout.splitlines()[2:])
    assert fake.requests == []  # a GET of /models at most, never a paid completion


def test_doctor_finds_a_missing_key_and_a_server_that_is_down(project, fake, monkeypatch):
    down = f"http://127.0.0.1:{closed_port()}/v1"
    monkeypatch.delenv("OTHER_KEY", raising=False)
    project.write_panels(
        "    mixed:\n      members:\n"
        f"        - {{id: up, model: openai/up, api_base: '{fake.url}', api_key_env: FAKE_KEY}}\n"
        f"        - {{id: down, model: openai/down, api_base: '{down}', api_key_env: FAKE_KEY}}\n"
        f"        - {{id: keyless, model: openai/k, api_base: '{fake.url}', api_key_env: OTHER_KEY}}\n")
    result = project.cli("doctor", "--panel", "mixed")
    assert result.exit_code == 1
    lines = rows(result.stdout)
    assert "fail" not in lines["up"]
    assert f"fail: {down} does not answer" in lines["down"]
    assert "fail: missing OTHER_KEY" in lines["keyless"]
    assert "mixed/down, mixed/keyless" in result.stderr
    assert "warn: unknown to litellm" in lines["up"]


def test_doctor_unknown_panel(project):
    result = project.cli("doctor", "--panel", "nope")
    assert result.exit_code == 2 and "no panel 'nope'" in result.stderr


def test_doctor_and_errors_print_urls_without_credentials(project, fake):
    port = closed_port()
    down = f"http://dana:hunter2-pass@127.0.0.1:{port}/v1?token=tok-8f3k2j&region=eu"
    project.write_panels(f"    p:\n      members:\n        - {{id: down, model: openai/d, api_base: '{down}'}}\n")
    result = project.cli("doctor", "--panel", "p")
    assert result.exit_code == 1
    assert "hunter2" not in result.output and "tok-8f3k2j" not in result.output and "dana" not in result.output
    assert f"http://***@127.0.0.1:{port}/v1?token=***&region=*** does not answer" in result.stdout


def test_doctor_checks_the_model_is_served_and_waits_out_a_busy_server(project, fake):
    fake.models = ["alpha", "beta"]
    project.write_panels(fake_panel(fake.url, ids=("alpha", "gamma")))
    result = project.cli("doctor", "--panel", "fake")
    lines = rows(result.stdout)
    assert result.exit_code == 1 and "fail" not in lines["alpha"]
    assert "does not serve 'gamma' (it lists alpha, beta)" in lines["gamma"]
    fake.models, fake.models_delay = ["alpha", "gamma"], 4.0  # busy generating: /models answers late
    result = project.cli("doctor", "--panel", "fake")
    assert result.exit_code == 0, result.output
    assert "is busy (no whole answer to /models within 3s)" in result.stdout


def test_doctor_names_a_misspelt_model_and_the_close_ones(project, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake-key-0123456789")
    project.write_panels("    hosted:\n      members:\n        - {id: typo, model: anthropic/claude-sonet-4-5}\n"
                         "        - {id: right, model: anthropic/claude-sonnet-4-5}\n")
    result = project.cli("doctor", "--panel", "hosted")
    lines = rows(result.stdout)
    assert "fail: unknown to litellm, cost not tracked; did you mean claude-sonnet-4-5" in lines["typo"]
    assert "warn" not in lines["right"] and "fail" not in lines["right"]
    table = [line for line in result.stdout.splitlines() if not line.startswith("[note")]
    assert max(map(len, table)) < 150  # a long finding is a note under the table, not a 250-character cell
    assert result.exit_code == 1  # a typo would bill nobody knows what, or fail every call


def test_doctor_passes_an_unknown_model_whose_member_says_its_price_or_allows_it(project, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake-key-0123456789")
    project.write_panels("    hosted:\n      members:\n"
                         "        - {id: priced, model: anthropic/claude-next, price: {input: 3, output: 15}}\n"
                         "        - {id: allowed, model: anthropic/claude-next, allowUnknownModel: true}\n")
    result = project.cli("doctor", "--panel", "hosted")
    lines = rows(result.stdout)
    assert result.exit_code == 0, result.output
    assert "ok (its own price)" in lines["priced"] and "warn: unknown to litellm" in lines["allowed"]
    project.write_panels("    hosted:\n      members:\n"
                         "        - {id: bad, model: anthropic/claude-next, price: {input: -1, output: 15}}\n")
    refused = project.cli("doctor", "--panel", "hosted")
    assert refused.exit_code == 2 and "price" in refused.stderr


def test_doctor_and_estimate_price_hosted_members_without_importing_litellm(project):
    import subprocess
    import sys
    from pathlib import Path

    project.write_panels("    hosted:\n      members:\n        - {id: a, model: openai/gpt-4o-mini}\n"
                         "        - {id: b, model: anthropic/claude-opus-4-6}\n")
    probe = ("import sys\nfrom typer.testing import CliRunner\nfrom discuss.cli.app import app\n"
             f"root = {str(project.root)!r}\n"
             "d = CliRunner().invoke(app, ['--root', root, 'doctor', '--panel', 'hosted'])\n"
             "e = CliRunner().invoke(app, ['--root', root, 'run', 'swarm-power', '--panel', 'hosted', '--estimate'])\n"
             "print('litellm' in sys.modules, '| ok' in d.output.replace('  ', ' ') or ' ok ' in d.output, "
             "'$' in e.output)\n")
    src = str(Path(__file__).resolve().parent.parent / "src")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "PYTHONPATH": src})
    assert done.stdout.split() == ["False", "True", "True"], done.stdout + done.stderr
