"""The agreement meter on fixed texts."""

import pytest

from discuss.rules.agreement import agreement, embedding_measure, label, lexical_similarity, measure

POWER = "Solar power from the swarm should be beamed to Earth by microwave transmission to rectenna farms."
PARAPHRASE = "Power collected by the solar swarm ought to be transmitted to Earth with microwaves received at rectennas."
UNRELATED = "Quarterly revenue grew because the bakery opened a second shop downtown."


def test_identical_texts_agree_fully():
    assert lexical_similarity(POWER, POWER) == pytest.approx(1.0)
    assert agreement([POWER, POWER, POWER]) == pytest.approx(1.0)


def test_unrelated_texts_do_not_agree():
    assert lexical_similarity(POWER, UNRELATED) < 0.1


def test_paraphrases_fall_between():
    score = lexical_similarity(POWER, PARAPHRASE)
    assert 0.25 < score < 0.9


def test_round_agreement_is_the_mean_of_pairs():
    pairs = [lexical_similarity(POWER, PARAPHRASE), lexical_similarity(POWER, UNRELATED),
             lexical_similarity(PARAPHRASE, UNRELATED)]
    assert agreement([POWER, PARAPHRASE, UNRELATED]) == pytest.approx(sum(pairs) / 3, abs=1e-4)
    assert agreement([POWER]) is None and agreement([]) is None


@pytest.mark.parametrize("value, expected", [(0.9, "consensus"), (0.70, "consensus"), (0.5, "mixed"),
                                             (0.30, "contested"), (0.1, "contested"), (None, None)])
def test_labels(value, expected):
    assert label(value) == expected


def test_an_embedding_measure_plugs_in():
    vectors = {"a": [1.0, 0.0], "b": [0.6, 0.8], "c": [-1.0, 0.0]}
    similarity = embedding_measure(lambda texts: [vectors[t] for t in texts])
    assert similarity("a", "a") == pytest.approx(1.0)
    assert similarity("a", "b") == pytest.approx(0.6)
    assert similarity("a", "c") == 0.0  # opposite meanings clip to no agreement
    assert agreement(["a", "b", "c"], similarity) == pytest.approx((0.6 + 0.0 + 0.0) / 3, abs=1e-4)


def test_unknown_measure_is_refused():
    with pytest.raises(ValueError, match="unknown agreement measure"):
        measure("telepathy")
