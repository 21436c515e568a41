"""Tensegrity simulator of Savin, Vorochaeva, Kurenkov (2020): rigid rods, elastic cables,
Newton-Euler dynamics."""
