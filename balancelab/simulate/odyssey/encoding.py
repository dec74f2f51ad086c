"""Odyssey's finite action encoding (:mod:`balancelab.simulate.encoding`).

An engine action is ``op * 1000 + argument`` (table in :mod:`~balancelab.simulate.odyssey.state`);
its id is the opcode's block offset plus the argument split into digits:

====  ======================  =====================================================
op    argument                digits (radices)
====  ======================  =====================================================
0     k cards drawn           k (most cards a space lets a crewmember draw, + 1)
1     to_seat * 32 + card     seat (crew + 1), crew card (20)
2     system * 32 + card      system (4), crew card (20)
3     door                    door (8)
4     HAL card                HAL card (14)
5     0                       (none)
6     lowest Logic number     low (13)
7     seat asked              seat (crew + 1)
8     destination space       space (board spaces)
9     HAL card (+50 row)      from the row (2), HAL card (14)
10    seat * 32 + card named  seat (crew + 1), crew card (20)
11    seat                    seat (crew + 1)
12    HAL card                HAL card (14)
13    HAL card (+50 row)      from the row (2), HAL card (14)
14    card, or PAIR+k1*32+k2  pair (2), k1 (20), k2 (20) (one card: (0, 0, card))
15-17 crew card               crew card (20)
====  ======================  =====================================================

The ids depend on the options only (crew size, board, draw numbers), never on the state.
"""

from __future__ import annotations

import functools
from typing import Any

from balancelab.simulate.encoding import (
    ActionEncodingError,
    OpSpace,
    by_identity,
    check_index,
    memo_encode,
)
from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey import state as S
from balancelab.simulate.odyssey.rules import OdysseyOptions

_CREW_CARD = C.N_CREW_KINDS
_HAL_CARD = C.N_HAL_KINDS


@functools.lru_cache(maxsize=64)
def action_space(options: OdysseyOptions) -> OpSpace:
    """The id space of ``options`` (cached per options value)."""
    ctx = S.ctx_for(options)
    seats = ctx.n + 1
    return OpSpace({
        S.OP_END: (len(ctx.end_actions),),
        S.OP_GIVE: (seats, _CREW_CARD),
        S.OP_REPAIR: (4, _CREW_CARD),
        S.OP_OPEN: (8,),
        S.OP_CANCEL: (_HAL_CARD,),
        S.OP_RECOVER: (),
        S.OP_DISCONNECT: (13,),
        S.OP_ASK: (seats,),
        S.OP_MOVE: (ctx.n_spaces,),
        S.OP_HAL_PLAY: (2, _HAL_CARD),
        S.OP_TARGET: (seats, _CREW_CARD),
        S.OP_SCAN: (seats,),
        S.OP_REVEAL: (_HAL_CARD,),
        S.OP_HAL_DISCARD: (2, _HAL_CARD),
        S.OP_LIMIT: (2, _CREW_CARD, _CREW_CARD),
        S.OP_SCAN_DISCARD: (_CREW_CARD,),
        S.OP_ASK_GIVE: (_CREW_CARD,),
        S.OP_RECOVER_TAKE: (_CREW_CARD,),
    })


_BY_32 = (S.OP_GIVE, S.OP_REPAIR, S.OP_TARGET)
_ROW = (S.OP_HAL_PLAY, S.OP_HAL_DISCARD)


def encode(options: OdysseyOptions, action: Any) -> int:
    """The id of engine action ``action`` (an int ``op * 1000 + argument``).

    Raises:
        ActionEncodingError: not an int, or an opcode/argument outside the options' space.
    """
    if not isinstance(action, int) or isinstance(action, bool) or action < 0:
        raise ActionEncodingError(f"an odyssey action is an int op*1000+arg, got {action!r}")
    op, arg = divmod(action, 1000)
    digits: tuple[int, ...]
    if op in _BY_32:
        digits = divmod(arg, 32)
    elif op in _ROW:
        digits = (1, arg - S.REV) if arg >= S.REV else (0, arg)
    elif op == S.OP_LIMIT:
        digits = (1, *divmod(arg - S.PAIR, 32)) if arg >= S.PAIR else (0, 0, arg)
    elif op == S.OP_RECOVER:
        if arg != 0:
            raise ActionEncodingError(f"RECOVER takes no argument, got {action!r}")
        digits = ()
    else:
        digits = (arg,)
    return action_space(options).encode(op, digits)


def _ids(options: OdysseyOptions) -> dict[Any, int]:
    """Action → id, filled as actions are met (the ids do not depend on the state)."""
    return {}


def encode_all(options: OdysseyOptions, actions: Any) -> list[int]:
    """The ids of engine ``actions``, in order (:func:`encode` of each, remembered per
    options object).

    Raises:
        ActionEncodingError: as :func:`encode`.
    """
    return memo_encode(by_identity(options, _ids), actions, lambda a: encode(options, a))


def decode(options: OdysseyOptions, index: Any) -> int:
    """The engine action of id ``index`` (inverse of :func:`encode`).

    Raises:
        ActionEncodingError: ``index`` is not an id of the options' space.
    """
    op, d = action_space(options).decode(check_index(index))
    if op in _BY_32:
        arg = d[0] * 32 + d[1]
    elif op in _ROW:
        arg = d[0] * S.REV + d[1]
    elif op == S.OP_LIMIT:
        arg = S.PAIR + d[1] * 32 + d[2] if d[0] else d[2]
        if not d[0] and d[1]:
            raise ActionEncodingError(f"action id {index} names no odyssey action")
    else:
        arg = d[0] if d else 0
    return op * 1000 + arg
