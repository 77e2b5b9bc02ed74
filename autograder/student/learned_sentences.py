"""The exercise sentences a record carries, taught to the message catalog.

The student package ships no suite, so not their catalogs: a record holds the
exercise hints (their ideas, APIs and recipes, in each language) and the
known mistakes' sentences its checks say. Whatever process says or reads a
failure of the record's checks learns them first: the process that replays
it, and the one that merges the device counts' results (it reads each
failure's catalog references, and refuses a key its catalog does not know).
No JAX, no NumPy: the merging process imports neither.
"""

from __future__ import annotations

from autograder.catalog import hint_ideas, messages


def learn_hints(catalog: dict) -> None:
    """Teach the message catalog the exercise hints a record uses: their ideas in each language and APIs,
    and their recipes if recorded; without a recipe, the idea is said at every level. A hint the catalog
    knows is left as it is."""
    for key, entry in catalog.items():
        ideas, recipes = entry.get("idea", {}), entry.get("recipe", {})
        if key in hint_ideas.IDEAS or not ideas.get("en"):
            continue
        hint_ideas.IDEAS[key] = ideas["en"]
        hint_ideas.APIS[key] = tuple(entry.get("apis", ()))
        messages.ENGLISH[f"{key}.idea"] = ideas["en"]
        messages.ENGLISH[key] = recipes.get("en", ideas["en"])
        for language in messages.LANGUAGES:
            if language != "en" and language in ideas:
                translations = messages.catalog(language)
                translations[f"{key}.idea"] = ideas[language]
                translations[key] = recipes.get(language, ideas[language])


def learn_mistakes(sentences: dict[str, dict[str, str]]) -> None:
    """Teach the message catalog the known mistakes' sentences; a sentence the catalog knows is left as it is."""
    for key, said in sentences.items():
        if key in messages.ENGLISH or not said.get("en"):
            continue
        messages.ENGLISH[key] = said["en"]
        for language in messages.LANGUAGES:
            if language != "en" and language in said:
                messages.catalog(language)[key] = said[language]


def learn_record(record: dict) -> None:
    """Both of a record's catalogs."""
    learn_hints(record.get("hints", {}))
    learn_mistakes(record.get("mistakes", {}))
