"""No two modules of the project import each other, however long the way round (issue 20).

import-linter's ``acyclic_siblings`` contract (``pyproject.toml``) finds cycles between the
modules and sub-packages that share a parent. This finds every module-level cycle, a
package's ``__init__`` and its own modules included, from grimp's graph (import-linter's
own), counting every import: inside functions and under ``TYPE_CHECKING`` too.
"""

from __future__ import annotations

from collections.abc import Iterable

import grimp

PACKAGES = ("pifold_cli", "pifold_tui", "pifold_bench", "pifold_agent", "pifold_core", "palettes")
"""Every package of the project."""


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Each set of modules that import one another (Tarjan's strongly connected components
    of two or more), sorted."""
    imported = {
        module: sorted(graph.find_modules_directly_imported_by(module)) for module in graph.modules
    }
    order: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(imported):
        if root in order:
            continue
        # Iterative, so a long chain of imports cannot reach Python's recursion limit.
        work: list[tuple[str, Iterable[str]]] = [(root, iter(imported[root]))]
        order[root] = lowest[root] = len(order)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, remaining = work[-1]
            for target in remaining:
                if target not in imported:
                    continue
                if target not in order:
                    order[target] = lowest[target] = len(order)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(imported[target])))
                    break
                if target in on_stack:
                    lowest[module] = min(lowest[module], order[target])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    lowest[parent] = min(lowest[parent], lowest[module])
                if lowest[module] == order[module]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == module:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def test_no_module_cycle_anywhere() -> None:
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    assert cycles(graph) == []
    assert len(graph.modules) > 250  # every package was read


def test_a_cycle_is_found_whatever_its_length() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in [
        ("shop.app", "shop.cart"),
        ("shop.cart", "shop.prices"),
        ("shop.prices", "shop.app"),  # three modules round
        ("shop", "shop.app"),
        ("shop.app", "shop"),  # a package and its own module
        ("shop.cart", "shop.tax"),  # a chain, no cycle
    ]:
        graph.add_import(importer=importer, imported=imported)
    assert cycles(graph) == [["shop", "shop.app", "shop.cart", "shop.prices"]]
