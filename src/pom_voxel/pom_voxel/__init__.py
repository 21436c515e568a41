"""The POM voxel quadruped: Planes of Motion kinematics, gaits, mocap preprocessing and nodes."""
