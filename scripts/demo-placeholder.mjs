// The demo lands with the `cli` package (issue 8). Until then this line of the Quick start says so.
console.log("promo-review demo is not built yet: it arrives with the @promo-review/cli package.");
console.log("Meanwhile `npx -y pnpm@10.34.9 test` runs every test.");
