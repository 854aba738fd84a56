build-x/tests/test_game: tests/test_game.c game/postext.h game/board.h \
 game/dabconf.h game/err.h game/sc.h tests/testhelp.h
game/postext.h:
game/board.h:
game/dabconf.h:
game/err.h:
game/sc.h:
tests/testhelp.h:
