"""The import graph of ARCHITECTURE.md, checked on the real imports (grimp reads every
import statement, those inside functions too; ``if TYPE_CHECKING`` ones are left out, as
they never run). Run with ``-s`` to see the graph."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("grimp")

import grimp

LIBRARY, SERVER = "templatekit", "templatekit_server"

#: What each part may not import (a module or package and everything under it).
FORBIDDEN = {
    "templatekit.model": ["templatekit.layout", "templatekit.paint", "templatekit.render", "templatekit.video",
                          "templatekit.text", "templatekit.notebook", SERVER],
    "templatekit.layout": ["templatekit.paint", "templatekit.render", "templatekit.video", SERVER],
    "templatekit.text": ["templatekit.layout", "templatekit.paint", "templatekit.render", SERVER],
    "templatekit.scene": ["templatekit.layout", "templatekit.text", "templatekit.paint", "templatekit.render"],
    "templatekit.browser": ["templatekit.layout", "templatekit.paint", "templatekit.render", "templatekit.video",
                            SERVER],
    LIBRARY: [SERVER],
}  # fmt: skip
#: Painters know the Scene's primitives, the values they carry, and font files' glyphs.
PAINT_MAY_IMPORT = {"templatekit.scene", "templatekit.scene.geometry", "templatekit.scene.memory",
                    "templatekit.model.values", "templatekit.font_file", "templatekit.cache"}  # fmt: skip


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(LIBRARY, SERVER, exclude_type_checking_imports=True, cache_dir=None)


def part(module: str) -> str:
    """The part a module belongs to: a top-level module or subpackage of its package."""
    return ".".join(module.split(".")[:2])


def parts_graph(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            if part(module) != part(imported):
                edges.setdefault(part(module), set()).add(part(imported))
    return edges


def cycles(edges: dict[str, set[str]]) -> Iterator[list[str]]:
    """The strongly connected parts with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> Iterator[list[str]]:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                yield from visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            members = []
            while (member := stack.pop()) != node:
                members.append(member)
            if members:
                yield sorted([node, *members])

    for node in sorted(edges):
        if node not in index:
            yield from visit(node)


def test_the_parts_import_each_other_without_cycles(graph):
    edges = parts_graph(graph)
    print("\nthe import graph of the parts (a -> what a imports):")
    for name in sorted(edges):
        print(f"  {name} -> {', '.join(sorted(edges[name]))}")
    assert list(cycles(edges)) == []


def test_no_module_imports_itself_back_even_for_its_types():
    """No cycle even inside a part, counting the imports made for type hints alone: a
    module that needs another's types while that one needs it is one job cut in two."""
    graph = grimp.build_graph(LIBRARY, SERVER, exclude_type_checking_imports=False, cache_dir=None)
    edges = {module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules}
    assert list(cycles(edges)) == []


@pytest.mark.parametrize("importer", sorted(FORBIDDEN))
def test_each_part_keeps_to_its_layer(graph, importer):
    for imported in FORBIDDEN[importer]:
        chains = graph.find_shortest_chains(importer=importer, imported=imported, as_packages=True)
        assert not chains, f"{importer} reaches {imported}: " + "; ".join(" -> ".join(c) for c in chains)


def test_painters_know_scene_primitives_only(graph):
    painters = [m for m in graph.modules if m == "templatekit.paint" or m.startswith("templatekit.paint.")]
    outside = {
        (module, imported)
        for module in painters
        for imported in graph.find_modules_directly_imported_by(module)
        if not imported.startswith("templatekit.paint") and imported not in PAINT_MAY_IMPORT
    }
    assert outside == set()


@pytest.mark.parametrize("refusal", ["templatekit.budget", "templatekit.errors"])
def test_painters_import_no_budget_errors(graph, refusal):
    """Painting cannot fail: no painter reaches the budget or the errors, even through
    another module; what painting takes is asked of the budget before it starts."""
    chains = graph.find_shortest_chains(importer="templatekit.paint", imported=refusal, as_packages=True)
    assert not chains, "; ".join(" -> ".join(chain) for chain in chains)


def test_no_module_outside_video_builds_frames(graph):
    """One compositor: a still, a poster and a PDF at a moment paint the Scene the video's
    timeline gives for it; only the video encoder makes frames."""
    importers = graph.find_modules_that_directly_import("templatekit.video.frames")
    assert {module for module in importers if not module.startswith("templatekit.video.")} == set()


def test_video_frames_are_placed_and_blended_by_the_painters():
    """One compositor: a frame is the moment's Scene painted by the raster painter's fast
    path; the video package resamples and blends nothing itself (OpenCV is there only to
    convert a frame's colours for the encoders, dither a GIF's, and keep its threads to
    the painters')."""
    external = grimp.build_graph(LIBRARY, include_external_packages=True, cache_dir=None)
    assert external.find_modules_that_directly_import("cv2") == {
        "templatekit.paint.frame",
        "templatekit.paint.resample",
        "templatekit.video.animated",
        "templatekit.video.encode",
        "templatekit.video.movie",
    }
    assert "templatekit.paint.frame" in external.find_modules_directly_imported_by("templatekit.video.frames")


def test_only_whole_plotly_figures_reach_the_browser(graph):
    """Plotly draws charts given as whole figures only: the chart layout asks the browser
    adapter for them, the server asks it whether a browser is there (its public name), and
    nothing else in the library starts Chrome."""
    importers = graph.find_modules_that_directly_import("templatekit.browser.figures")
    assert importers == {"templatekit.layout.chart"}
    outside = {
        (module, imported)
        for module in graph.modules
        if module.startswith(SERVER)
        for imported in graph.find_modules_directly_imported_by(module)
        if imported.startswith("templatekit.browser") and imported != "templatekit.browser"
    }
    assert outside == set()


def test_the_server_uses_the_public_or_the_service_api_only(graph):
    """The server is a client of the library: it imports ``templatekit`` (the public API)
    and ``templatekit.service`` (what a service uses beyond it), never a module inside."""
    allowed = {LIBRARY, "templatekit.service"}
    inside = {
        (module, imported)
        for module in graph.modules
        if module.startswith(SERVER)
        for imported in graph.find_modules_directly_imported_by(module)
        if imported.startswith(f"{LIBRARY}.") and imported not in allowed
    }
    assert inside == set()
