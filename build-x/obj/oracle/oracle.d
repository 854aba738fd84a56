build-x/obj/oracle/oracle.o: oracle/oracle.c oracle/oracle.h game/board.h \
 game/dabconf.h game/err.h solver/analysis.h solver/retro.h \
 game/progress.h
oracle/oracle.h:
game/board.h:
game/dabconf.h:
game/err.h:
solver/analysis.h:
solver/retro.h:
game/progress.h:
