build-x/bench/retro_exact: bench/retro_exact.c game/postext.h \
 game/board.h game/dabconf.h game/err.h solver/retro.h game/board.h \
 game/progress.h solver/analysis.h symmetry/sym.h
game/postext.h:
game/board.h:
game/dabconf.h:
game/err.h:
solver/retro.h:
game/board.h:
game/progress.h:
solver/analysis.h:
symmetry/sym.h:
