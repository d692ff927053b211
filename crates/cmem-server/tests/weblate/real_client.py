"""Ask a tmserver (cmem serve) as Weblate's own machinery does, and judge its answers
with Weblate's own checks.

Needs Weblate installed in the running Python (3.12+): `pip install weblate==2026.10.1
"psycopg[binary]"` (Weblate's test settings import the PostgreSQL driver; no database is
used). Usage: `real_client.py TMSERVER_URL < cases.jsonl > out.jsonl`, where each case
line has at least "source" and "flags" (`c-format`, `python-format`, …); its other fields
are copied to the output. Writes one JSON line per case: the URL paths requested below
the tmserver root, the masked text and Weblate's replacements, the suggestions as Weblate
shows them (unmasked) and the checks that fail on each. `judge.py` counts them.
"""
import json
import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "weblate.settings_test")
import django  # noqa: E402

django.setup()

from weblate.checks.models import CHECKS  # noqa: E402
from weblate.lang.models import Language, Plural  # noqa: E402
from weblate.machinery.tmserver import TMServerTranslation  # noqa: E402
from weblate.trans.models import Component, Project, Translation, Unit  # noqa: E402

CHECK_IDS = None


def make_unit(source, flags):
    project = Project(name="p", slug="p")
    en = Language(code="en")
    de = Language(code="de")
    component = Component(project=project, name="c", slug="c", file_format="po", source_language=en)
    component.check_flags = flags
    translation = Translation(component=component, language=de, plural=Plural(language=de))
    unit = Unit(translation=translation, source=source, target="", context="")
    unit.flags = flags
    return unit


def failing_checks(unit, source, target):
    failed = []
    for check_id, check in CHECKS.items():
        if not (check_id.endswith("_format") or check_id in {"xml-tags", "xml-invalid", "placeholders", "bbcode"}):
            continue
        if not getattr(check, "target", False):
            continue
        try:
            if check_id.endswith("_format") and check_id.replace("_", "-") not in unit.all_flags.format():
                continue
            if check.check_single(source, target, unit):
                failed.append(check_id)
        except Exception as error:  # a check that cannot run here says so
            failed.append(f"{check_id}: {error!r}")
    return failed


def main():
    url = sys.argv[1]
    machine = TMServerTranslation({"url": url})
    requested = []
    original = machine.request

    def recording(method, url, **kwargs):
        requested.append(url)
        return original(method, url, **kwargs)

    machine.request = recording
    for line in sys.stdin:
        case = json.loads(line)
        unit = make_unit(case["source"], case["flags"])
        requested.clear()
        masked, replacements = machine.cleanup_text(case["source"], unit)
        try:
            results = machine.translate(unit, None, 80)
        except Exception as error:
            results = [[{"error": repr(error)}]]
        suggestions = []
        for r in results[0]:
            if "error" in r:
                suggestions.append(r)
                continue
            suggestions.append({
                "quality": r["quality"],
                "source": r["source"],
                "target": r["text"],
                "failed": failing_checks(unit, case["source"], r["text"]),
            })
        out = dict(case)
        out.update({
            "masked": masked,
            "replacements": replacements,
            "requests": [u.split("/tmserver", 1)[-1] if "/tmserver" in u else u for u in requested],
            "suggestions": suggestions,
        })
        print(json.dumps(out, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
