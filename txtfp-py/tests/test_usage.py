"""The Python and Spark examples of USAGE.md run as written."""

import os
import re

import pytest

from conftest import REPO


def blocks(section):
    text = (REPO / "USAGE.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {section}\n")
    end = text.find("\n## ", start + 1)
    body = text[start:end]
    found = re.findall(r"```python\n(.*?)```", body, flags=re.S)
    assert found, f"no python example in USAGE.md section {section!r}"
    return found


@pytest.mark.parametrize("index", range(len(blocks("Python"))))
def test_python_examples(index):
    exec(compile(blocks("Python")[index], f"USAGE.md Python example {index + 1}", "exec"), {})


def test_spark_examples():
    if not os.environ.get("TXTFP_SPARK_MASTER"):
        if os.environ.get("TXTFP_REQUIRE_SPARK") == "1":
            pytest.fail("TXTFP_REQUIRE_SPARK=1 but TXTFP_SPARK_MASTER is not set")
        pytest.skip("SKIPPED LOUDLY: no Spark cluster (eval \"$(scripts/setup-spark.sh)\")")
    scope = {}
    for i, code in enumerate(blocks("Spark")):
        exec(compile(code, f"USAGE.md Spark example {i + 1}", "exec"), scope)
    scope["spark"].stop()
