build-x/obj/theorems/graphsolve.o: theorems/graphsolve.c \
 theorems/graphsolve.h game/board.h game/dabconf.h game/err.h game/err.h
theorems/graphsolve.h:
game/board.h:
game/dabconf.h:
game/err.h:
game/err.h:
