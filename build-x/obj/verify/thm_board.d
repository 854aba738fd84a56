build-x/obj/verify/thm_board.o: verify/thm_board.c game/postext.h \
 game/board.h game/dabconf.h game/err.h game/sc.h solver/retro.h \
 game/board.h game/progress.h solver/analysis.h theorems/graphsolve.h \
 game/board.h game/err.h theorems/sle.h verify/thm_check.h \
 game/progress.h
game/postext.h:
game/board.h:
game/dabconf.h:
game/err.h:
game/sc.h:
solver/retro.h:
game/board.h:
game/progress.h:
solver/analysis.h:
theorems/graphsolve.h:
game/board.h:
game/err.h:
theorems/sle.h:
verify/thm_check.h:
game/progress.h:
