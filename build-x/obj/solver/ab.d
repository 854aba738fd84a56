build-x/obj/solver/ab.o: solver/ab.c solver/ab.h game/board.h \
 game/dabconf.h game/err.h game/progress.h solver/analysis.h solver/tt.h \
 game/err.h symmetry/sym.h theorems/sle.h game/board.h game/err.h
solver/ab.h:
game/board.h:
game/dabconf.h:
game/err.h:
game/progress.h:
solver/analysis.h:
solver/tt.h:
game/err.h:
symmetry/sym.h:
theorems/sle.h:
game/board.h:
game/err.h:
