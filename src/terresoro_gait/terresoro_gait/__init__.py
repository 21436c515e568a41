"""pMFC gait synthesis for TerreSoRo-III/-IV (Freeman, Mahendran, Vikas, IEEE T-RO 2025)."""
