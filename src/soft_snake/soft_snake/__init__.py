"""soft_snake: the pneumatic modular soft snake of Y. Sun's thesis, chapter 2 (seed 004):
sign-of-sine valve patterns for lateral undulation (Eq. 2.1) and sidewinding (Eq. 2.2), the
step-climbing state table (Table 2.3), the chamber pneumatics, and the thesis's measured tables. SI
at every interface (s, Hz, rad, Pa); the thesis's psi and BL/s are converted at the edges."""
