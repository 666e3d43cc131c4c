"""Spectacular Bid: a two-player Fives domino duel with an opening auction and a match clock."""
