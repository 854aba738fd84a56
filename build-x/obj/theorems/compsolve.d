build-x/obj/theorems/compsolve.o: theorems/compsolve.c \
 theorems/compsolve.h game/err.h game/dabconf.h theorems/sle.h \
 game/board.h game/err.h
theorems/compsolve.h:
game/err.h:
game/dabconf.h:
theorems/sle.h:
game/board.h:
game/err.h:
