"""What each panelist is shown: earlier rounds within the budget, its own work marked."""

from discuss.domain import Discussion, Panel, Panelist, Question, Reply, Round, Settings
from discuss.protocols import vote
from discuss.protocols.vote.record import VoteResult, ballot_box
from discuss.text.prompting import Prompts, estimate_tokens

PANEL = Panel("p", (Panelist("a", "offline/a", "A"), Panelist("b", "offline/b", "B")))


def discussion(rounds: int, words: int, budget: int) -> Discussion:
    d = Discussion("q", "q", "Q?", PANEL, Settings(context_tokens=budget))
    for n in range(1, rounds + 1):
        r = Round(number=n, seed=n)
        for pid in ("a", "b"):
            r.replies[pid] = Reply(pid, pid, n, f"round {n} by {pid} " + "word " * words, "t")
        ballot_box(r).results = [VoteResult("a", 4, 4.0, 2, 0), VoteResult("b", 2, 2.0, 0, 0)]
        ballot_box(r).winner_id, ballot_box(r).winner_score, r.completed_at = ("a" if n % 2 else "b"), 4.0, "t"
        d.rounds.append(r)
    return d


def respond_prompt(d: Discussion, who: str) -> str:
    q = Question(path=None, slug="q", title="Q?", background="Background.")
    d.rounds.append(Round(number=len(d.rounds) + 1, seed=0))
    spec = vote.respond_spec(d, q, d.rounds[-1], Prompts(), d.panel.member(who))
    return spec.messages[-1]["content"]


def test_each_panelist_sees_every_answer_with_its_own_and_the_winner_marked():
    d = discussion(rounds=2, words=5, budget=6000)
    prompt_a = respond_prompt(d, "a")
    assert "### Round 1\n\n#### Answer A (yours) (the round's winner), weighted score 4" in prompt_a
    assert "### Round 2\n\n#### Answer A (the round's winner), weighted score 2" in prompt_a
    assert "#### Answer B (yours), weighted score 4" in prompt_a
    assert all(f"round {n} by {pid}" in prompt_a for n in (1, 2) for pid in "ab")  # the other's answers too


def test_prompt_size_levels_off_at_the_context_budget():
    sizes = [estimate_tokens(respond_prompt(discussion(n, words=800, budget=3000), "a"))
             for n in (1, 2, 5, 10, 40, 60)]
    fixed = estimate_tokens(respond_prompt(discussion(0, words=0, budget=3000), "a"))
    assert sizes[1] > sizes[0]  # earlier rounds are shown while they fit
    assert all(size <= fixed + 3000 for size in sizes)  # never past the budget
    assert sizes[-1] == sizes[-2]  # once full, more rounds add nothing
    prompt = respond_prompt(discussion(10, words=800, budget=3000), "a")
    assert "round 10 by b" in prompt  # the newest winner is always there
    assert "round 1 by a" not in prompt and "left out to stay within the context budget" in prompt


def test_project_prompts_override_the_packaged_ones(tmp_path):
    (tmp_path / "vote.j2").write_text("Custom ballot for {{ question.title }}")
    prompts = Prompts(tmp_path)
    assert prompts.render("vote", question={"title": "Q?"}) == "Custom ballot for Q?\n"
    assert "panel of language models" in prompts.render("system", panelist=PANEL.members[0])


def test_a_prompt_from_a_pull_request_cannot_reach_past_its_data(tmp_path, monkeypatch):
    """A project's prompt templates come with its files, from anyone who opens a pull request: they fill in
    text and may not reach the process (its environment, its keys, its files) through the values they get."""
    import pytest

    from discuss.errors import InputError

    monkeypatch.setenv("FAKE_KEY", "sk-must-never-leave-123456")
    for attempt in ("{{ cycler.__init__.__globals__.os.environ }}",
                    "{{ question.__class__.__mro__[1].__subclasses__() }}",
                    "{{ lipsum.__globals__['os'].environ['FAKE_KEY'] }}",
                    "{% set x = question.update({'title': 'changed'}) %}{{ question.title }}"):
        (tmp_path / "vote.j2").write_text(attempt)
        with pytest.raises(InputError, match="vote.j2"):
            Prompts(tmp_path).render("vote", question={"title": "Q?"})
    (tmp_path / "vote.j2").write_text("{% if question.title %}Ballot {{ question.title | upper }}{% endif %}")
    assert Prompts(tmp_path).render("vote", question={"title": "q?"}) == "Ballot Q?\n"


def test_compiled_prompts_are_kept_in_the_users_cache_and_follow_an_edit(tmp_path, monkeypatch):
    from discuss.text import prompting

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    prompting._environment.cache_clear()
    (tmp_path / "vote.j2").write_text("First {{ question.title }}")
    assert Prompts(tmp_path).render("vote", question={"title": "Q?"}) == "First Q?\n"
    assert list((tmp_path / "cache" / "discuss" / "prompts").rglob("*.cache")), "the compiled template is kept"
    prompting._environment.cache_clear()  # as a new process would: what was kept is read, nothing compiled
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def not_again(*args, **kwargs):
        raise AssertionError("compiled again")

    with monkeypatch.context() as patched:
        patched.setattr(ImmutableSandboxedEnvironment, "compile", not_again)
        assert Prompts(tmp_path).render("vote", question={"title": "Q?"}) == "First Q?\n"
    prompting._environment.cache_clear()
    (tmp_path / "vote.j2").write_text("Second {{ question.title }}")
    assert Prompts(tmp_path).render("vote", question={"title": "Q?"}) == "Second Q?\n"
    prompting._environment.cache_clear()


def test_a_cache_folder_others_can_write_in_is_not_used(tmp_path, monkeypatch):
    from discuss.userdirs import user_cache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert user_cache("prompts") == tmp_path / "discuss" / "prompts"
    (tmp_path / "discuss" / "shared").mkdir(mode=0o777)
    (tmp_path / "discuss" / "shared").chmod(0o777)
    assert user_cache("shared") is None


def test_an_environment_with_a_function_for_a_setting_keeps_one_folder(tmp_path, monkeypatch):
    """A function's address differs from process to process: named by it, each build made a new folder."""
    import jinja2

    from discuss.text.compiled import compiled_templates

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folders = {compiled_templates(jinja2.Environment(autoescape=jinja2.select_autoescape()), "site").directory
               for _ in range(3)}  # a new function each time, as in each new process
    assert len(folders) == 1
    other = compiled_templates(jinja2.Environment(autoescape=True), "site").directory
    assert other not in folders  # what the compiled code depends on still names the folder
