"""One exception tree under ValueError: stable codes, messages naming the input, params for translation."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

from engine import ERRORS, LexioError, error_from_dict
from engine.errors import InputError, NotOnRack, RackError, ShapeError, TurnError, Wall

DOCUMENTED = [
    "off_board",
    "wall",
    "occupied",
    "duplicate_square",
    "not_in_line",
    "gap",
    "missing_source",
    "not_connected",
    "no_word",
    "not_on_rack",
    "blank_without_letter",
    "too_many_tiles",
    "empty_play",
    "swap_too_large",
    "bad_swap",
    "not_your_turn",
    "game_over",
    "not_started",
    "already_started",
    "reserve_empty",
    "table_full",
    "not_enough_players",
    "not_first_seat",
    "bad_name",
    "bad_notation",
    "unknown_variant",
    "bad_letter",
    "bad_seat",
    "bad_setting",
    "table_exists",
    "bad_event",
]


def test_every_documented_code_has_its_error_class_under_value_error() -> None:
    for code in DOCUMENTED:
        cls = ERRORS[code]
        assert cls.code == code and issubclass(cls, LexioError) and issubclass(cls, ValueError)
        assert issubclass(cls, ShapeError | RackError | TurnError | InputError)


def test_codes_are_unique_snake_case() -> None:
    assert len({cls.code for cls in ERRORS.values()}) == len(ERRORS)
    assert all(code.replace("_", "").isalpha() and code.islower() for code in ERRORS)


def test_an_error_carries_code_message_and_params_and_survives_pickling() -> None:
    err = NotOnRack("cannot play N: not on your rack MAISOZ", tiles="N", rack="MAISOZ")
    assert err.to_dict() == {
        "code": "not_on_rack",
        "message": "cannot play N: not on your rack MAISOZ",
        "params": {"tiles": "N", "rack": "MAISOZ"},
    }
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is NotOnRack and again.to_dict() == err.to_dict()
    assert error_from_dict(err.to_dict()).to_dict() == err.to_dict()
    assert type(error_from_dict({"code": "nope", "message": "m"})) is LexioError


def test_a_rule_violation_can_be_caught_as_a_value_error() -> None:
    with pytest.raises(ValueError, match="square A1 is a wall"):
        raise Wall("square A1 is a wall", square="A1")


def test_every_code_the_architecture_names_exists() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("### Errors", 1)[1].split("###", 1)[0]
    codes_text = section.split("Codes (at least):", 1)[1].split("Groups,", 1)[0]
    named = set(re.findall(r"`([a-z_]+)`", codes_text))
    assert set(DOCUMENTED) <= named
    assert named <= set(ERRORS), named - set(ERRORS)
