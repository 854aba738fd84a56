build-x/bench/ab_bench: bench/ab_bench.c game/postext.h game/board.h \
 game/dabconf.h game/err.h solver/ab.h game/board.h game/progress.h \
 solver/analysis.h solver/tt.h game/err.h symmetry/sym.h
game/postext.h:
game/board.h:
game/dabconf.h:
game/err.h:
solver/ab.h:
game/board.h:
game/progress.h:
solver/analysis.h:
solver/tt.h:
game/err.h:
symmetry/sym.h:
