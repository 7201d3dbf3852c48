/** Framework text for composition tests: `plans:` with a deploy and an update plan of one phase `main` holding `steps`. */
export const deployAndUpdatePlans = (steps: string[]): string[] =>
  ['plans:', ...['deploy', 'update'].flatMap((p) => [`  ${p}:`, '    phases:', '      - name: main', '        steps:', ...steps.map((s) => `          - ${s}`)])];
