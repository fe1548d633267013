"""Who is calling and what they may see: API keys bound to an agent, with grants."""
