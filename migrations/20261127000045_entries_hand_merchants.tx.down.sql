DROP INDEX entries_hand_merchant_idx;
