"""``/fold-settings``: the seven options as a form, validated as you type, saved and applied.

Every keystroke and every palette step sends the whole form through the settings file's own
validator (:mod:`.form`): a refused value shows the rule it breaks under the form and marks
the fields it names; Save stays refused until every rule holds. The preview bar repaints on
each palette step. Save writes the file atomically through :class:`SettingsFile` and the
running engine takes the options at once; Escape leaves without saving. A file on disk that
cannot be read or is refused is shown with its reason and is only replaced by a second,
deliberate Save.

The preview bar follows the form as typed (its band, budget and palette), while the session's
own bar at the foot keeps the saved settings until Save; the preview's label says which of
the two it differs from, so the two bars never seem to disagree without a reason.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Static, Switch

from palettes import MAP_NAMES, PaletteSetting, PaletteSettingError
from pifold_core.engine import Engine
from pifold_core.refused_settings import REFUSED_SUFFIX, keep_aside
from pifold_core.settings import SettingsError, SettingsFile
from pifold_tui.fold_bar import FoldBar
from pifold_tui.screens.settings.form import (
    FIELDS,
    Verdict,
    field_texts,
    judge,
    palette_setting,
    settings_mapping,
)
from pifold_tui.screens.settings.slider import MapChooser, PositionSlider
from pifold_tui.screens.status.frame import BarFooter

PREVIEW_SAVED = "preview: the bar with these settings, as saved"
"""The preview's label while the form holds what the session runs with."""

PREVIEW_UNSAVED = (
    "preview: the bar with this form (not saved: the session's bar below keeps the saved "
    "settings until ctrl+s)"
)
"""The preview's label once the form differs from what the session runs with."""


def _input_id(key: str) -> str:
    return "field-" + key.replace(".", "-")


class FoldSettingsScreen(Screen[None]):
    """Edit the options the settings file holds; ``read_only`` refuses Save."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "leave", "Leave without saving"),
    ]

    DEFAULT_CSS = """
    FoldSettingsScreen #settings-form { height: 1fr; padding: 0 1; }
    FoldSettingsScreen #settings-file { color: $text-muted; }
    FoldSettingsScreen #settings-file.-refused { color: $error; text-style: bold; }
    FoldSettingsScreen .field-row { height: 1; margin-top: 1; }
    FoldSettingsScreen .field-row > Label { width: 24; }
    FoldSettingsScreen .field-row > Input { width: 30; }
    FoldSettingsScreen .field-row > Switch { width: 30; height: 1; border: none; padding: 0; }
    FoldSettingsScreen .field-help { width: 1fr; padding: 0 0 0 2; color: $text-muted; }
    FoldSettingsScreen .field-row > Input.-invalid { background: $error 35%; }
    FoldSettingsScreen .field-row.-invalid > Label { color: $error; text-style: bold; }
    FoldSettingsScreen .palette-row { height: 1; margin-top: 1; }
    FoldSettingsScreen .palette-row > Label { width: 24; }
    FoldSettingsScreen .palette-row.-invalid > Label { color: $error; }
    FoldSettingsScreen #preview-label { margin-top: 1; color: $text-muted; }
    FoldSettingsScreen #settings-verdict { margin-top: 1; height: auto; }
    FoldSettingsScreen #settings-verdict.-refused { color: $error; text-style: bold; }
    FoldSettingsScreen #settings-verdict.-done { color: $success; }
    FoldSettingsScreen #settings-buttons { height: auto; margin-top: 1; }
    FoldSettingsScreen #settings-buttons > Button { margin-right: 2; }
    """

    def __init__(self, engine: Engine, settings: SettingsFile, read_only: bool = False) -> None:
        super().__init__()
        self.engine = engine
        self.settings = settings
        self.read_only = read_only
        self.disk_error: SettingsError | None = None
        """Why the file on disk was refused when the screen opened (it is never replaced
        without a second Save)."""
        self.replace_confirmed = False
        try:
            settings.load()
        except SettingsError as error:
            self.disk_error = error
        self.budget_from_session = "providerInputBudget" not in settings.names
        """The file does not set the budget: the form shows the session's own (from the
        model or ``--budget``), and saving neither pins it in the file nor replaces it by the
        file's base."""
        start = settings.options
        if self.budget_from_session:
            start = dataclasses.replace(start, budget=engine.options.budget)
        self.start = start
        """The options the form opened with."""
        self.verdict = Verdict(self.start, None)
        """The validator's last word on the form."""
        self.outcome = ""
        """The last save's outcome or refusal."""

    def compose(self) -> ComposeResult:
        texts = field_texts(self.start)
        palette = self.start.palette
        with VerticalScroll(id="settings-form"):
            yield Static(self._file_line(), id="settings-file")
            for form_field in FIELDS:
                with Horizontal(classes="field-row", id=f"row-{_input_id(form_field.key)}"):
                    yield Label(form_field.label)
                    if form_field.kind == "switch":
                        yield Switch(texts[form_field.key] == "true", id=_input_id(form_field.key))
                    else:
                        yield Input(
                            texts[form_field.key], id=_input_id(form_field.key), compact=True
                        )
                    yield Static(form_field.help, classes="field-help")
            with Horizontal(classes="palette-row", id="row-palette-map"):
                yield Label("palette.map")
                yield MapChooser(MAP_NAMES, palette.map_name, id="palette-map")
            with Horizontal(classes="palette-row", id="row-palette-start"):
                yield Label("palette.start")
                yield PositionSlider(palette.start, id="palette-start")
            with Horizontal(classes="palette-row", id="row-palette-end"):
                yield Label("palette.end")
                yield PositionSlider(palette.end, id="palette-end")
            yield Label(PREVIEW_SAVED, id="preview-label")
            yield FoldBar(
                self.engine.composition(),
                palette_setting=palette_setting(self.start),
                id="preview-bar",
            )
            yield Static("", id="settings-verdict")
            with Horizontal(id="settings-buttons"):
                yield Button("Save", variant="primary", id="save")
                yield Button("Leave", id="leave")
        yield BarFooter(self.engine)

    def _file_line(self) -> Text:
        path = self.settings.path
        if self.disk_error is not None:
            return Text(
                f"settings file REFUSED, kept as it is: {self.disk_error.reason} ({path}); this "
                "form starts from the defaults, and Save replaces the file"
            )
        if self.settings.found:
            return Text(f"settings file: {path}")
        return Text(f"settings file: {path} (not there yet: defaults; Save creates it)")

    def on_mount(self) -> None:
        self.query_one("#settings-file", Static).set_class(self.disk_error is not None, "-refused")
        self.revalidate()
        # The first field takes the keys at once: a form that opens with nothing focused
        # makes the first keystroke a Tab (issue 19).
        self.query_one(f"#{_input_id(FIELDS[0].key)}").focus()

    # -- reading the form ------------------------------------------------------------------

    def _texts(self) -> dict[str, str]:
        texts: dict[str, str] = {}
        for form_field in FIELDS:
            if form_field.kind == "switch":
                switch = self.query_one(f"#{_input_id(form_field.key)}", Switch)
                texts[form_field.key] = "true" if switch.value else "false"
            else:
                texts[form_field.key] = self.query_one(f"#{_input_id(form_field.key)}", Input).value
        return texts

    def _palette(self) -> tuple[str, float, float]:
        return (
            self.query_one(MapChooser).value,
            self.query_one("#palette-start", PositionSlider).value,
            self.query_one("#palette-end", PositionSlider).value,
        )

    def revalidate(self) -> None:
        """Judge the whole form again, mark what it blames and repaint the preview."""
        self.verdict = judge(settings_mapping(self._texts(), self._palette()), self.settings.base)
        for form_field in FIELDS:
            if form_field.kind != "switch":
                blamed = form_field.key in self.verdict.fields
                self.query_one(f"#{_input_id(form_field.key)}", Input).set_class(blamed, "-invalid")
                self.query_one(f"#row-{_input_id(form_field.key)}").set_class(blamed, "-invalid")
        for key in ("map", "start", "end"):
            row = self.query_one(f"#row-palette-{key}")
            row.set_class(f"palette.{key}" in self.verdict.fields, "-invalid")
        verdict = self.query_one("#settings-verdict", Static)
        if self.verdict.error is not None:
            verdict.update(Text(f"refused: {self.verdict.error}"))
        else:
            verdict.update(Text(self.outcome or "every rule holds; ctrl+s saves"))
        verdict.set_class(self.verdict.error is not None, "-refused")
        verdict.set_class(self.verdict.error is None and bool(self.outcome), "-done")
        self._repaint_preview()

    def _repaint_preview(self) -> None:
        """The preview takes the form's band and budget (when every rule holds) and its
        palette; its label says whether that is what the session runs with."""
        preview = self.query_one("#preview-bar", FoldBar)
        options = self.verdict.options
        composition = self.engine.composition()
        if options is not None:
            preview.composition = dataclasses.replace(
                composition,
                budget=options.budget,
                max_target=options.thresholds.max_target,
                min_target=options.thresholds.min_target,
            )
        saved = options is not None and options == self.engine.options
        self.query_one("#preview-label", Label).update(PREVIEW_SAVED if saved else PREVIEW_UNSAVED)
        map_name, start, end = self._palette()
        try:
            setting = PaletteSetting(map_name, start, end)
        except PaletteSettingError:
            return  # start == end: the verdict already says so; the preview keeps its last
        preview.palette_setting = setting

    def on_input_changed(self, event: Input.Changed) -> None:
        self.outcome = ""
        self.revalidate()

    def on_switch_changed(self, event: Switch.Changed) -> None:
        self.outcome = ""
        self.revalidate()

    def on_map_chooser_changed(self, event: MapChooser.Changed) -> None:
        self.outcome = ""
        self.revalidate()

    def on_position_slider_changed(self, event: PositionSlider.Changed) -> None:
        self.outcome = ""
        self.revalidate()

    # -- saving ----------------------------------------------------------------------------

    def _say(self, text: str, good: bool) -> None:
        self.outcome = text
        verdict = self.query_one("#settings-verdict", Static)
        verdict.update(Text(text))
        verdict.set_class(not good, "-refused")
        verdict.set_class(good, "-done")

    def action_save(self) -> None:
        if self.read_only:
            self._say("refused: this session is open read-only; nothing was saved", False)
            return
        options = self.verdict.options
        if options is None:
            self._say(f"refused, not saved: {self.verdict.error}", False)
            return
        if self.disk_error is not None and not self.replace_confirmed:
            self.replace_confirmed = True
            self._say(
                f"the file on disk is refused ({self.disk_error.reason}); Save again to "
                f"replace it with this form (the refused one is kept as "
                f"{self.settings.path.name}{REFUSED_SUFFIX}<time>)",
                False,
            )
            return
        kept = ""
        if self.disk_error is not None and self.settings.path.is_file():
            try:
                kept_as = keep_aside(self.settings.path)
            except OSError as error:
                self._say(f"refused, not saved: cannot keep the refused file aside: {error}", False)
                return
            kept = f"; the refused file is kept as {kept_as.name}"
        written = options
        # A host whose file base carries another budget than the session (inspecting a
        # replay, say) would otherwise have the palette's Save change the session's budget.
        if self.budget_from_session and options.budget == self.engine.options.budget:
            written = dataclasses.replace(options, budget=self.settings.base.budget)
        try:
            self.settings.save(written)
        except SettingsError as error:
            self._say(f"refused, not saved: {error.reason}", False)
            return
        self.disk_error = None
        self.budget_from_session = "providerInputBudget" not in self.settings.names
        self.engine.apply_options(options)  # a no-op when the host's listener already did
        file_line = self.query_one("#settings-file", Static)
        file_line.update(self._file_line())
        file_line.set_class(False, "-refused")
        self.query_one(BarFooter).show()
        self._repaint_preview()
        self._say(f"saved to {self.settings.path} and applied to the running session{kept}", True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save":
            self.action_save()
        else:
            self.action_leave()

    def action_leave(self) -> None:
        self.dismiss(None)
