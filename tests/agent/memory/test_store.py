"""The memory store: where notes live, the refusals of the path space, atomic private writes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_agent.memory.locations import project_folder, project_key, repository_root
from pifold_agent.memory.notes import covers, paths_named, title_of
from pifold_agent.memory.store import MAX_NOTE_BYTES, MemoryStore, MemoryStoreError


def make_store(root: Path) -> MemoryStore:
    return MemoryStore(root / "memory" / "proj-0123", root / "memory" / "user")


def test_project_is_the_repository_root_named_readably_and_without_collisions(
    tmp_path: Path,
) -> None:
    repository = tmp_path / "one" / "app"
    (repository / ".git").mkdir(parents=True)
    (repository / "src" / "deep").mkdir(parents=True)
    assert repository_root(repository / "src" / "deep") == repository.resolve()
    other = tmp_path / "two" / "app"
    other.mkdir(parents=True)
    assert repository_root(other) == other.resolve()  # no .git: the working directory
    first, second = project_key(repository), project_key(other)
    assert first.startswith("app-") and second.startswith("app-") and first != second
    assert project_folder(repository / "src", tmp_path / "home").name == first


def test_notes_are_private_files_written_whole(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.write("/memories/build/how.md", "paths: Makefile\n# Building\nrun make\n")
    store.write("/memories/user/style.md", "# Style\nshort names\n")
    real = store.project / "build" / "how.md"
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert stat.S_IMODE(real.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(store.project.stat().st_mode) == 0o700
    notes = store.notes()
    assert [note.path for note in notes] == ["/memories/build/how.md", "/memories/user/style.md"]
    assert notes[0].about == ("Makefile",) and notes[0].title == "Building"
    assert (store.user / "style.md").read_text() == "# Style\nshort names\n"


def test_temporary_and_hidden_files_are_never_notes(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.write("/memories/a.md", "a")
    (store.project / ".a.md.x1y2").write_text("torn")
    assert [note.path for note in store.notes()] == ["/memories/a.md"]
    with pytest.raises(MemoryStoreError, match="hidden"):
        store.read("/memories/.a.md.x1y2")


def test_rename_and_delete(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.write("/memories/a.md", "a")
    store.write("/memories/b.md", "b")
    with pytest.raises(MemoryStoreError, match="already exists"):
        store.rename("/memories/a.md", "/memories/b.md")
    store.rename("/memories/a.md", "/memories/user/a.md")
    assert store.read("/memories/user/a.md").text == "a"
    store.delete("/memories/b.md")
    with pytest.raises(MemoryStoreError, match="does not exist"):
        store.read("/memories/b.md")
    with pytest.raises(MemoryStoreError, match="root"):
        store.delete("/memories/user")


def test_oversized_note_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.write("/memories/a.md", "old")
    with pytest.raises(MemoryStoreError, match="at most"):
        store.write("/memories/a.md", "x" * (MAX_NOTE_BYTES + 1))
    assert store.read("/memories/a.md").text == "old"


def test_a_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.write("/memories/a.md", "a")
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "key.md").write_text("secret")
    os.symlink(outside, store.project / "link")
    with pytest.raises(MemoryStoreError, match="outside"):
        store.read("/memories/link/key.md")
    with pytest.raises(MemoryStoreError, match="outside"):
        store.write("/memories/link/new.md", "x")
    assert not (outside / "new.md").exists()
    assert [note.path for note in store.notes()] == ["/memories/a.md"]


def test_a_note_folder_that_is_itself_a_link_is_read(tmp_path: Path) -> None:
    synced = tmp_path / "synced"
    synced.mkdir()
    (tmp_path / "memory").mkdir()
    os.symlink(synced, tmp_path / "memory" / "user")
    store = make_store(tmp_path)
    store.write("/memories/user/style.md", "# Style\n")
    assert (synced / "style.md").exists()
    assert [note.path for note in store.notes()] == ["/memories/user/style.md"]


BAD_PARTS = st.sampled_from(["..", ".", "", ".hidden", "a\\b", "%2e%2e", "a\x00b", "a\nb"])
GOOD_PARTS = st.text(
    alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Nd"), whitelist_characters="-_"),
    min_size=1,
    max_size=12,
)


@settings(max_examples=150, deadline=None)
@given(
    before=st.lists(GOOD_PARTS, max_size=3),
    bad=BAD_PARTS,
    after=st.lists(GOOD_PARTS, max_size=2),
)
def test_a_path_with_a_part_that_could_escape_is_refused(
    tmp_path_factory: pytest.TempPathFactory, before: list[str], bad: str, after: list[str]
) -> None:
    root = tmp_path_factory.mktemp("refusal")
    store = make_store(root)
    path = "/".join(["/memories", *before, bad, *after, "note.md"])
    with pytest.raises(MemoryStoreError):
        store.write(path, "x")
    assert not any(root.rglob("*note.md"))


@settings(max_examples=100, deadline=None)
@given(path=st.text(max_size=40))
def test_whatever_the_path_a_write_lands_inside_a_note_folder_or_is_refused(
    tmp_path_factory: pytest.TempPathFactory, path: str
) -> None:
    root = tmp_path_factory.mktemp("anywhere")
    store = make_store(root)
    try:
        store.write(path, "x")
    except MemoryStoreError:
        assert not [found for found in root.rglob("*") if found.is_file()]
        return
    written = [found for found in root.rglob("*") if found.is_file()]
    assert len(written) == 1
    assert written[0].resolve().is_relative_to(store.project.resolve()) or written[
        0
    ].resolve().is_relative_to(store.user.resolve())


def test_paths_line_and_covering() -> None:
    assert paths_named("paths: a.py, src/b/, ../x, /etc\n# T") == ("a.py", "src/b/")
    assert paths_named("---\ntitle: x\nPaths: ./c.py\n---\nbody") == ("c.py",)
    assert paths_named("# no paths\npaths: a.py") == ()
    assert title_of("/memories/x.md", "text\n## Heading\n") == "Heading"
    assert covers("src/b/", "src/b/c.py") and covers("a.py", "a.py")
    assert covers("src/a.py", "src") and not covers("src/deep/a.py", "src")
    assert covers("a.py", "") and not covers("src/a.py", "")
    assert not covers("a.py", "a.pyc")
