"""The client's three languages: every key is in every language, with the same
placeholders, none empty; and every key the client names literally (``t("…")``, ``data-i18n``)
exists. A missing key would show its raw name to a player of that language."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[1] / "static"
LANGUAGES = ("en", "fi", "uk")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
PLURALS = {"en": {"one", "other"}, "fi": {"one", "other"}, "uk": {"one", "few", "many", "other"}}
"""The CLDR plural categories of each language (``Intl.PluralRules``): a plural string has a form
for each."""
NAMED_KEY = re.compile(r"""(?:\bt\(|data-i18n["']?\s*[:=]\s*)["']([a-z_]+(?:\.[a-z0-9_]+)+)["']""")


def flat(tree: object, prefix: str = "") -> Iterator[tuple[str, object]]:
    """Each string by its dotted key; a plural string (its forms by category) as one."""
    if isinstance(tree, dict) and "other" in tree and set(tree) <= set().union(*PLURALS.values()):
        yield prefix, tree
    elif isinstance(tree, dict):
        for key, value in tree.items():
            yield from flat(value, f"{prefix}.{key}" if prefix else key)
    else:
        yield prefix, tree


def strings(language: str) -> dict[str, object]:
    tree = json.loads((STATIC / "i18n" / f"{language}.json").read_text(encoding="utf-8"))
    return dict(flat(tree))


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_every_key_is_in_every_language(language: str) -> None:
    english, other = strings("en"), strings(language)
    assert sorted(set(english) - set(other)) == [], f"missing in {language}"
    assert sorted(set(other) - set(english)) == [], f"only in {language}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_string_is_text_with_the_english_placeholders(language: str) -> None:
    english, other = strings("en"), strings(language)
    for key, value in other.items():
        forms = value if isinstance(value, dict) else {"": value}
        if isinstance(value, dict):
            assert set(value) == PLURALS[language], f"{language} {key}: plural forms"
        model = english.get(key, "")
        expected = set(PLACEHOLDER.findall(json.dumps(model)))
        for form, text in forms.items():
            assert isinstance(text, str), f"{language} {key} {form}: {text!r}"
            assert text.strip(), f"{language} {key} {form}: empty"
            assert set(PLACEHOLDER.findall(text)) <= expected, f"{language} {key} {form}"
        assert set(PLACEHOLDER.findall(json.dumps(value))) == expected, f"{language} {key}"


def test_every_key_the_client_names_exists() -> None:
    english = strings("en")
    named = {
        (path.name, key)
        for path in sorted((STATIC / "js").glob("*.js"))
        for key in NAMED_KEY.findall(path.read_text(encoding="utf-8"))
    }
    assert len(named) > 100  # the pattern finds the client's keys
    assert sorted((name, key) for name, key in named if key not in english) == []


def test_the_ukrainian_strings_fit_any_player() -> None:
    """No masculine-only forms about a named player."""
    masculine = re.compile(r"\b(готовий|здався|виклав|став|його годинник)\b")
    found = {key: text for key, text in strings("uk").items() if masculine.search(str(text))}
    assert found == {}


def test_the_finnish_replay_is_not_read_as_a_rematch() -> None:
    fi = strings("fi")
    assert "uusinta" not in str(fi["replay.title"]).lower()
    assert "uusinta" not in str(fi["lobby.replay"]).lower()
    assert "uusinta" in str(fi["rematch.offer"]).lower()


def rule_items(language: str) -> dict[str, str]:
    """The text of each rule of the rules overlay in ``language``, by its id (R2.1, D2, …)."""
    page = (STATIC / "rules" / f"{language}.html").read_text(encoding="utf-8")
    found = re.findall(r'<li><span class="rid">([RD][0-9.]+)</span>(.*?)</li>', page, re.S)
    return {rule: re.sub(r"<[^>]+>", "", text).lower() for rule, text in found}


def stem(word: str) -> str:
    """Enough of a Ukrainian word to find its inflected forms (запас, запасу, запасі)."""
    return word.strip().lower()[:5]


BONEYARD_KEYS = ("match.boneyard", "banner.must_draw", "event.drew", "event.drew_own")
BANK_KEYS = (
    "clock.bank",
    "clock.aria",
    "lobby.fact_clock",
    "time.custom_bank",
    "time.bank_invalid",
)
BONEYARD_RULES = ("R2.1", "R4.1", "D2")
BANK_RULES = ("R7.1", "R7.2", "R7.7")


def test_the_ukrainian_bank_and_boneyard_are_two_words() -> None:
    """The clock's bank (R7.1) and the tiles left to draw (R2.1) are different things, so in
    Ukrainian they have different words, in the client and in the rules alike."""
    uk = strings("uk")
    rules = rule_items("uk")
    boneyard, bank = stem(str(uk["match.boneyard"])), stem(str(uk["clock.bank"]))
    assert boneyard != bank
    texts = {key: str(uk[key]).lower() for key in (*BONEYARD_KEYS, *BANK_KEYS)}
    texts.update(rules)
    for name in (*BONEYARD_KEYS, *BONEYARD_RULES):
        assert boneyard in texts[name], f"uk {name}: {texts[name]!r}"
        assert bank not in texts[name], f"uk {name}: {texts[name]!r}"
    for name in (*BANK_KEYS, *BANK_RULES):
        assert bank in texts[name], f"uk {name}: {texts[name]!r}"
        assert boneyard not in texts[name], f"uk {name}: {texts[name]!r}"


def test_the_finnish_jockey_is_finnish() -> None:
    """The player who went out (R4.5) has a Finnish name in the client and in the rules, the
    same in both."""
    fi = strings("fi")
    word = str(fi["seat.jockey"]).lower()
    found = {key: text for key, text in fi.items() if "jockey" in json.dumps(text).lower()}
    assert found == {}
    page = (STATIC / "rules" / "fi.html").read_text(encoding="utf-8").lower()
    assert "jockey" not in page
    rules = rule_items("fi")
    for rule in ("R4.5", "R6.1", "R6.4"):
        assert word[:-1] in rules[rule], f"fi {rule} does not name the {word}: {rules[rule]!r}"
