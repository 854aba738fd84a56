build-x/obj/theorems/sle.o: theorems/sle.c game/sc.h game/board.h \
 game/dabconf.h game/err.h theorems/sle.h game/board.h game/err.h
game/sc.h:
game/board.h:
game/dabconf.h:
game/err.h:
theorems/sle.h:
game/board.h:
game/err.h:
