-- The repair is not undone: which accounts were private to nobody is not kept, and making
-- them hidden again would lose them once more.
SELECT 1;
