"""dab: Dots-and-Boxes for Python: the game as OpenSpiel users know it,
exact labels on any state, batches of games, every player, tablebases and
the oracle, through ctypes on libdab.so.

    import dab
    game = dab.Game(3, 3)                      # returns win/draw/loss; utility="margin": margins
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    state.observation_tensor()                 # OpenSpiel's [3, (R+1)(C+1), 3]
    state.value(); state.move_values(); state.best_moves(); state.wdl()
    batch = game.new_states(4096)              # numpy-backed, stepped in C
    dab.Player("perfect", "3x3").move(state)   # any player spec, q:FILE...

    from dab import Tablebase, Oracle          # as before (docs/python-oracle.md)

Values follow Wilson's convention: the net boxes the player to move gains
from here under optimal play.  A position is a line set: bit i set = line i
drawn (OpenSpiel dots_and_boxes action ids).  docs/python.md has the whole
reference.  libdab.so is found through $DAB_LIB, then this package's own
folder, then the source tree's build/ (when the package runs from python/ of
a dab checkout), then the install prefix (`make install`, sys.prefix/lib).
Thread safety: one Tablebase or Oracle may be used from many threads at
once (an Oracle that searches answers one query at a time); a State, a
States batch or a Player by one thread at a time.

Errors: bad arguments raise ValueError (or TypeError); a failed call raises
a DabError subclass chosen by the C error code (dab.errors).

Modules: errors (the exceptions), tablebase (Tablebase, build), oracle
(Oracle), paths (where, read-only mode), game (Game, State, load_game),
batch (States), player (Player), pdb (PatternDB), dataset (data sets that
`dab dataset` writes: load, TorchDataset), az_train (the AlphaZero
trainer, python3 -m dab.az_train); _lib loads libdab.so.
"""

import sys as _sys

try:
    import numpy as _numpy  # noqa: F401
except ImportError as _e:
    # One line instead of a traceback into dab.batch: which interpreter
    # lacks numpy, and the ones the README means.  A ModuleNotFoundError
    # (an ImportError) with .name "numpy"; `from None` drops the chain.
    _why = (str(_e).strip().splitlines() or ["ImportError"])[0]
    raise ModuleNotFoundError(
        "dab needs numpy, which this Python (%s) cannot import (%s): run dab under Debian's "
        "/usr/bin/python3 with python3-numpy (apt-get install python3-numpy), or the checkout's "
        ".venv/bin/python (python/mkvenv.sh), as README.md says" % (_sys.executable or "python3", _why),
        name="numpy") from None
del _numpy, _sys

from .errors import (DabError, DabInputError, DabBoardError, DabMemoryError, DabIOError,  # noqa: F401
                     DabCorruptError, DabCanceledError, DabInternalError, error_class)
from ._lib import (library_path, _load, _raise, _check_abi, _abi_mismatch, _Err,  # noqa: F401
                   _Coverage, _OracleOpts, _MIRRORED)
from ._answers import _Answers  # noqa: F401
from .paths import set_readonly, readonly, where  # noqa: F401
from .tablebase import Tablebase, build  # noqa: F401
from .oracle import Oracle  # noqa: F401
from .game import Game, State, Bounds, WDL, load_game  # noqa: F401
from .batch import States, Labels  # noqa: F401
from .player import Player  # noqa: F401
from .pdb import PatternDB  # noqa: F401
from . import dataset  # noqa: F401  (dab.dataset.load; torch only when TorchDataset is called)

__all__ = ["Tablebase", "Oracle", "library_path", "Game", "State", "States", "Player", "PatternDB",
           "load_game", "build", "set_readonly", "readonly", "where", "Bounds", "WDL", "Labels",
           "DabError", "DabInputError", "DabBoardError", "DabMemoryError", "DabIOError",
           "DabCorruptError", "DabCanceledError", "DabInternalError", "error_class"]
