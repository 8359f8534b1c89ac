"""The ``classic`` variant as data: the standard 15x15 board with English tiles.

It exists to prove the scoring core against real recorded games (shared/corpus/gcg-classic/).  The layout
keeps macondo's legend: '=' word x3, '-' word x2, '"' letter x3, "'" letter x2, ' ' plain.  The centre H8
is both the start square and a word x2; the board has no walls and no crossings.
"""

NAME = "classic"

# One string per row (rows end in spaces, so no triple-quoted block that an editor might trim).
LAYOUT = "\n".join(
    (
        "=  '   =   '  =",
        ' -   "   "   - ',
        "  -   ' '   -  ",
        "'  -   '   -  '",
        "    -     -    ",
        ' "   "   "   " ',
        "  '   ' '   '  ",
        "=  '   -   '  =",
        "  '   ' '   '  ",
        ' "   "   "   " ',
        "    -     -    ",
        "'  -   '   -  '",
        "  -   ' '   -  ",
        ' -   "   "   - ',
        "=  '   =   '  =",
    )
)

# letter count value; '?' is the blank.
TILES = """\
A 9 1
B 2 3
C 2 3
D 4 2
E 12 1
F 2 4
G 3 2
H 2 4
I 9 1
J 1 8
K 1 5
L 4 1
M 2 3
N 6 1
O 8 1
P 2 3
Q 1 10
R 6 1
S 4 1
T 6 1
U 4 1
V 2 4
W 2 4
X 1 8
Y 2 4
Z 1 10
? 2 0
"""

RACK_SIZE = 7
BINGO_BONUS = 50
SOURCE = "H8"
