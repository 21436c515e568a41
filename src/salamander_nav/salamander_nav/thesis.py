"""The salamander's figures from Y. Sun's thesis, chapter 3 (spec B1-B2, C2 HW-01), in SI, as
documented constants for scripts and reports. Nothing here is tuned; where two chapters disagree
both are kept (D-M6, D-M7, D-M9)."""

import math

# original module with actuation, sensing and control (§3.1.1)
MODULE_MASS_KG = 0.110
TORSIONAL_STIFFNESS_NM_PER_RAD = 7.311  # (§3.1.1; 0.128 N·m/degree)
TIP_LOAD_KG, TIP_LOAD_BEND_RAD = 1.0, math.radians(6.0)  # a 1 kg tip load bends it only about 6°
# 2.05 BL/s, gear transmission on paper (Table 3.1): the mechanism's best
MAX_SPEED_GEAR_PAPER_M_S = 0.3031
MAX_SPEED_CH3_CLAIM_M_S = 0.2264  # the chapter-3 introduction's claim (D-M6: both kept)
MAX_SLOPE_GEAR_CARPET_RAD = math.radians(60.0)  # Table 3.2; the introduction says 60.3° (D-M7)
MAX_SLOPE_CH3_CLAIM_RAD = math.radians(60.3)
# 1/m as printed; read as a typo for 12.52 (D-M9, origami.KAPPA_MAX)
TABLE_4_1_CURVATURE = 10.52
# three modules climb a 15 cm obstacle (§3.2.6)
MULTI_MODULE_OBSTACLE_M, MULTI_MODULE_COUNT = 0.15, 3
MAZE_TIME_S = 16.0  # the maze, remote-controlled over UART (§3.2.3)
VERTICAL_CLIMB_BL_IN_S = (1.0, 16.0)  # one body length in 16 s up a narrow vertical gap (§3.2.5)
MOTOR_VOLTAGE_V = 11.9  # in the speed tests (§3.2.1)
GEAR_RATIO = 31 / 14  # gear transmission (§3.1.2; also written 14:31)
ORIGAMI_MOTOR_GEAR_RATIO = 150  # N20 1:150 spool motors (§3.1.1)
