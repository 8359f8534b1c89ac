"""The ``lexio`` variant as data: the board and tiles of shared/design/decisions.md."""

NAME = "lexio"

# Legend: '#' wall, '*' source (covered by the first word, multiplies nothing), 'T' word x3, 'D' word x2,
# 't' letter x3, 'd' letter x2, 'X' crossing, '.' plain.
LAYOUT = """\
##T.D...D.T##
##.........##
T....t.t....T
...X.....X...
D....d.d....D
..t.d...d.t..
......*......
..t.d...d.t..
D....d.d....D
...X.....X...
T....t.t....T
##.........##
##T.D...D.T##
"""

# letter count value; '?' is the blank.
TILES = """\
A 10 1
B 2 3
C 2 2
D 3 2
E 14 1
F 2 4
G 2 3
H 2 4
I 8 1
J 1 8
K 1 10
L 5 1
M 3 2
N 6 1
O 6 1
P 2 2
Q 1 8
R 6 1
S 6 1
T 6 1
U 6 1
V 2 4
W 1 10
X 1 8
Y 1 10
Z 1 10
? 2 0
"""

RACK_SIZE = 7
BINGO_BONUS = 30
SOURCE = "G7"
