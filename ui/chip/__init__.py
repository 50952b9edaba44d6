"""The animated chip view as parts: layout, animator, painters, control bar, and the facade."""
