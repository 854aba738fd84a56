build-x/obj/verify/thm_levels.o: verify/thm_levels.c theorems/compsolve.h \
 game/err.h game/dabconf.h theorems/sle.h game/board.h game/err.h \
 theorems/graphsolve.h verify/thm_check.h game/progress.h
theorems/compsolve.h:
game/err.h:
game/dabconf.h:
theorems/sle.h:
game/board.h:
game/err.h:
theorems/graphsolve.h:
verify/thm_check.h:
game/progress.h:
