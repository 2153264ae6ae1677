"""Lexical composition suite (Shwartz & Dagan 2019): six tasks, Embed-Encode-Predict heads, majority baselines."""
