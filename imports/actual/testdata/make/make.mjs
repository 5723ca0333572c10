// Builds ../household.zip, a real Actual Budget export, with Actual's own API, and records in
// ../household.figures.json what Actual itself shows for it: each month's budget figures
// (getBudgetMonth) and each account's balance. The Go tests read both; they never run node.
//
//   cd imports/actual/testdata/make && npm ci && node make.mjs
//
// The household: two on-budget accounts and one off-budget, bills and everyday spending
// (Groceries carries its overspending, Dining does not), an income group, a hidden category,
// splits, a transfer, three budget months (October holds 250.00 for November), a monthly
// schedule, rules, goal templates in notes, one reconciled and one deleted transaction.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as api from '@actual-app/api';

const out = new URL('..', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'actual-fixture-'));
const months = ['2026-08', '2026-09', '2026-10'];
const cents = (units) => Math.round(units * 100);

const ids = {};

async function household() {
  ids.checking = await api.createAccount({ name: 'Checking', offbudget: false }, cents(2500));
  ids.savings = await api.createAccount({ name: 'Savings', offbudget: false }, cents(5000));
  ids.brokerage = await api.createAccount({ name: 'Brokerage', offbudget: true }, cents(12000));

  ids.bills = await api.createCategoryGroup({ name: 'Bills', is_income: false, hidden: false });
  ids.rent = await api.createCategory({ name: 'Rent', group_id: ids.bills, is_income: false, hidden: false });
  ids.electric = await api.createCategory({ name: 'Electric', group_id: ids.bills, is_income: false, hidden: false });
  ids.everyday = await api.createCategoryGroup({ name: 'Everyday', is_income: false, hidden: false });
  ids.groceries = await api.createCategory({ name: 'Groceries', group_id: ids.everyday, is_income: false, hidden: false });
  ids.dining = await api.createCategory({ name: 'Dining', group_id: ids.everyday, is_income: false, hidden: false });
  ids.gym = await api.createCategory({ name: 'Old Gym', group_id: ids.everyday, is_income: false, hidden: true });
  ids.goals = await api.createCategoryGroup({ name: 'Saving up', is_income: false, hidden: false });
  ids.holiday = await api.createCategory({ name: 'Holiday', group_id: ids.goals, is_income: false, hidden: false });
  const income = (await api.getCategoryGroups()).find((g) => g.is_income);
  ids.incomeGroup = income.id;
  ids.salary = await api.createCategory({ name: 'Salary', group_id: income.id, is_income: true, hidden: false });

  ids.landlord = await api.createPayee({ name: 'Landlord' });
  ids.employer = await api.createPayee({ name: 'Employer Ltd' });
  ids.supermarket = await api.createPayee({ name: 'Supermarket' });
  ids.power = await api.createPayee({ name: 'City Power' });
  ids.bistro = await api.createPayee({ name: 'Bistro' });
  const payees = await api.getPayees();
  ids.toSavings = payees.find((p) => p.transfer_acct === ids.savings).id;

  const checking = [];
  for (const [i, m] of months.entries()) {
    checking.push(
      { date: `${m}-01`, amount: cents(3000), payee: ids.employer, category: ids.salary, notes: `Salary ${m}`, cleared: true },
      { date: `${m}-02`, amount: cents(-1200), payee: ids.landlord, category: ids.rent, cleared: true },
      { date: `${m}-12`, amount: cents(-(70 + i * 5)), payee: ids.power, category: ids.electric, cleared: i < 2 },
    );
  }
  checking.push(
    // August: Groceries spends 350.00 of its 300.00 (its overspending carries), Dining 80.00
    // of its 50.00 (its overspending comes out of September's to-budget).
    {
      date: '2026-08-09', amount: cents(-380), payee: ids.supermarket, imported_payee: 'SUPERMKT 0042 SPRINGFIELD',
      imported_id: 'bank-0001', notes: 'Weekly shop and a dinner', cleared: true,
      subtransactions: [
        { amount: cents(-350), category: ids.groceries, notes: 'Food' },
        { amount: cents(-30), category: ids.dining, notes: 'Takeaway' },
      ],
    },
    { date: '2026-08-20', amount: cents(-50), payee: ids.bistro, category: ids.dining, cleared: true },
    { date: '2026-09-10', amount: cents(-210.55), payee: ids.supermarket, category: ids.groceries, cleared: true },
    { date: '2026-10-11', amount: cents(-199.99), payee: ids.supermarket, category: ids.groceries, imported_id: 'bank-0002' },
    // A transfer: the transfer payee of Savings makes the pair.
    { date: '2026-09-15', amount: cents(-500), payee: ids.toSavings, notes: 'Holiday fund', cleared: true },
    // Deleted below: the export keeps it as a tombstone.
    { date: '2026-09-21', amount: cents(-999), payee: ids.bistro, category: ids.dining, notes: 'entered twice' },
  );
  await api.addTransactions(ids.checking, checking, { runTransfers: true });
  await api.addTransactions(ids.brokerage, [
    { date: '2026-09-30', amount: cents(45.67), payee_name: 'Dividend', notes: 'Quarterly dividend' },
  ]);

  const budgets = { rent: 1200, electric: 80, groceries: 300, dining: 50, holiday: 100 };
  for (const m of months) {
    for (const [name, amount] of Object.entries(budgets)) {
      await api.setBudgetAmount(m, ids[name], cents(amount));
    }
  }
  await api.setBudgetCarryover('2026-08', ids.groceries, true);
}


async function afterImport() {
  // createAccount dates the opening balance today: move it before the first month.
  for (const account of [ids.checking, ids.savings, ids.brokerage]) {
    const all = await api.getTransactions(account, '2000-01-01', '2100-12-31');
    for (const t of all.filter((t) => t.starting_balance_flag)) {
      await api.updateTransaction(t.id, { date: '2026-07-31' });
    }
  }
  const twice = (await api.getTransactions(ids.checking, '2026-09-21', '2026-09-21'))[0];
  await api.deleteTransaction(twice.id);
  const rent = (await api.getTransactions(ids.checking, '2026-08-02', '2026-08-02'))[0];
  await api.updateTransaction(rent.id, { reconciled: true });

  await api.holdBudgetForNextMonth('2026-10', cents(250));

  await api.updateNote(ids.groceries, 'Food for the four of us\n#template 300');
  await api.updateNote(ids.holiday, '#template 1200 by 2027-06');

  ids.schedule = await api.createSchedule({
    name: 'Rent',
    account: ids.checking,
    payee: ids.landlord,
    amount: cents(-1200),
    amountOp: 'is',
    posts_transaction: false,
    date: { frequency: 'monthly', interval: 1, start: '2026-11-02', endMode: 'never', skipWeekend: false, weekendSolveMode: 'after' },
  });
  await api.createRule({
    stage: null,
    conditionsOp: 'and',
    conditions: [{ field: 'imported_payee', op: 'contains', value: 'SUPERMKT' }],
    actions: [{ field: 'category', op: 'set', value: ids.groceries }],
  });
  await api.createRule({
    stage: 'post',
    conditionsOp: 'and',
    conditions: [{ field: 'payee', op: 'isNot', value: ids.landlord }, { field: 'amount', op: 'lt', value: cents(-1000) }],
    actions: [{ op: 'prepend-notes', value: 'BIG: ' }],
  });
}

// figures is what Actual shows: each month's figures per category, and each account's balance.
async function figures() {
  const out = { months: {}, accounts: {} };
  for (const m of months) {
    const b = await api.getBudgetMonth(m);
    const cats = {};
    for (const g of b.categoryGroups) {
      for (const c of g.categories ?? []) {
        cats[c.name] = g.is_income
          ? { received: c.received }
          : { budgeted: c.budgeted, spent: c.spent, balance: c.balance, carryover: c.carryover };
      }
    }
    out.months[m] = { toBudget: b.toBudget, forNextMonth: b.forNextMonth, totalBudgeted: b.totalBudgeted, totalIncome: b.totalIncome, totalSpent: b.totalSpent, categories: cats };
  }
  for (const a of await api.getAccounts()) {
    out.accounts[a.name] = await api.getAccountBalance(a.id);
  }
  return out;
}

try {
  await api.init({ dataDir });
  await api.runImport('Household', household);
  await afterImport();
  writeFileSync(join(out, 'household.figures.json'), JSON.stringify(await figures(), null, 2) + '\n');
  writeFileSync(join(out, 'household.zip'), await api.exportBudget());
  await api.shutdown();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
