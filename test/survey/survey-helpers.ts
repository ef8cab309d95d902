/** The survey token a fresh load of the questionnaire page carries (what the page sends back with its answers). */
export async function surveyToken(url: string): Promise<string> {
  const html = await (await fetch(url)).text();
  const m = /<meta name="survey-token" content="([^"]+)">/.exec(html);
  if (!m) throw new Error('the survey page carries no token');
  return m[1]!;
}
