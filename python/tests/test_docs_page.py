"""docs/python.md holds the module as it is: each function's signature is its docstring's, every
public function and class has its place on the page, and every attribute of a verdict class is
named there (docs/architecture.md §7.2)."""
import inspect
import pathlib
import re

import peverify

PAGE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"
DEPRECATED = {"passed", "results", "coverage", "position", "column", "exact", "error", "ulp",
              "cause", "name"}


def public(kind):
    return {n: o for n, o in vars(peverify).items()
            if not n.startswith("_") and kind(o) and not inspect.ismodule(o)}


def signature_of(function):
    """The signature line our docstring starts with (pybind11 puts its own line first)."""
    lines = [l for l in function.__doc__.splitlines() if l.strip()]
    return next(l for l in lines[1:] if l.startswith(function.__name__ + "("))


def text_blocks(page):
    return re.findall(r"```text\n(.*?)\n```", page, re.S)


def test_every_function_signature_on_the_page_is_its_docstrings():
    page = PAGE.read_text()
    shown = text_blocks(page)
    functions = public(inspect.isroutine)
    assert functions, "the module has no functions"
    for name, f in functions.items():
        assert f"### `peverify.{name}`" in page, f"docs/python.md has no section for {name}"
        assert signature_of(f) in shown, f"docs/python.md shows another signature for {name}"
    names = {re.match(r"(\w+)\(", s).group(1) for s in shown}
    assert names <= set(functions), f"the page shows what the module lacks: {names - set(functions)}"


def test_every_class_and_attribute_is_named_on_the_page():
    page = PAGE.read_text()
    classes = public(inspect.isclass)
    assert classes, "the module has no classes"
    for name, c in classes.items():
        assert f"`{name}`" in page, f"docs/python.md does not name {name}"
        for attribute in dir(c):
            if attribute.startswith("_"):
                continue
            assert f"`{attribute}" in page, f"docs/python.md does not name {name}.{attribute}"
    for old in DEPRECATED:
        assert f"`{old}`" in page, f"docs/python.md does not list the deprecated {old}"
