"""What ``trace`` says: a repaired system's tile flipping back (REPAIR), a Scan discard once."""

from __future__ import annotations

import re

from helpers_odyssey import fresh, give_hal, give_hand, put_malfunctions, start_crew_turn
from typer.testing import CliRunner

from balancelab.cli import app
from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey.board import default_board
from balancelab.simulate.odyssey.state import T_SCAN_DISCARD

SP = {n: i for i, n in enumerate(default_board().names)}
FLIP = "COM is functioning again: its System Tile is flipped back to its white side"


def _repair_com(before: int, cards: list[int], seat: int = 1,
                roster: str = "bowman,poole,hunter") -> list[str]:
    """The events of playing ``cards`` one by one at COM with ``before`` malfunctions."""
    s = fresh(roster)
    put_malfunctions(s, C.COM, before)
    give_hand(s, seat, cards)
    s.pos[seat] = SP["COM"]
    start_crew_turn(s, seat)
    s.apply(8000 + SP["COM"])
    s.events()
    out = []
    for k in cards:
        s.apply(2000 + C.COM * 32 + k)
        out += s.events()
    return out


def test_repair_below_the_limit_flips_the_tile_back_once() -> None:
    """REPAIR: "If after playing Repair cards, there are now 3 or fewer Malfunction cards at
    ... COM ... Flip the System Tile back to its white side"."""
    assert _repair_com(4, [C.C_REPAIR_COM, C.C_WILD]) == [
        "COM malfunctions 4 -> 3", FLIP, "COM malfunctions 3 -> 2"]
    assert _repair_com(5, [C.C_WILD, C.C_WILD]) == [
        "COM malfunctions 5 -> 4", "COM malfunctions 4 -> 3", FLIP]
    assert _repair_com(3, [C.C_WILD]) == ["COM malfunctions 3 -> 2"]  # was working


def test_a_specialist_repair_across_the_limit_flips_once() -> None:
    """Kaminski's COM Repair removes 2 (Crewmember Special Abilities): 5 -> 3 in one card."""
    assert _repair_com(5, [C.C_REPAIR_COM], seat=2, roster="bowman,kaminski,hunter") == [
        "COM malfunctions 5 -> 3", FLIP]


def test_a_scan_discard_is_told_once() -> None:
    s = fresh()
    give_hand(s, 1, [C.C_CANCEL])
    give_hal(s, [C.H_SCAN, C.H_LIF, C.H_GRV], [C.H_TARGET, C.H_MEM, C.H_COM])
    s.stack = [(T_SCAN_DISCARD, 1)]
    s._run()
    s.events()
    assert s.action_text(15000 + C.C_CANCEL) == "Bowman reveals and discards Cancel (Scan)"
    s.stack.insert(0, (7, 2))  # then Poole's turn (T_CREW_TURN)
    s.apply(15000 + C.C_CANCEL)
    assert not [e for e in s.events() if "Cancel" in e]
    assert s.crew_disc == [C.C_CANCEL]


def test_trace_prints_each_scan_discard_once_and_every_flip() -> None:
    runner = CliRunner()
    scans = flips = 0
    for index in range(4):
        res = runner.invoke(app, ["trace", "odyssey", "--seed", "1", "--index", str(index)])
        assert res.exit_code == 0, res.output
        lines = [ln.strip() for ln in res.output.splitlines()]
        for i, ln in enumerate(lines):
            if ln.endswith("(Scan)"):
                scans += 1
                told = ln.removesuffix(" (Scan)")
                assert told not in lines[i + 1]
            m = re.fullmatch(r"(GRV|MEM|COM) malfunctions (\d) -> (\d)", ln)
            if m and int(m[2]) >= 4 > int(m[3]):
                flips += 1
                assert lines[i + 1] == FLIP.replace("COM", m[1])
        assert res.output.count("functioning again") == sum(
            1 for m in re.finditer(r"(GRV|MEM|COM) malfunctions (\d) -> (\d)", res.output)
            if int(m[2]) >= 4 > int(m[3]))
    assert scans and flips
