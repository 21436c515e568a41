"""salamander_nav: the origami salamander of Y. Sun's thesis, chapter 3 (seed 004): cable
kinematics of the origami module, its planar kinematic model, lattice A* and CHOMP planning on a
signed-distance field, and line-of-sight path following with PD steering, over the host ESP32 link.
Lengths in metres and angles in radians at every interface; the thesis's mm and degrees are
converted at the edges."""
