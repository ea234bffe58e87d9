export default {
  title: 'Disclaimer',
  updated: 'Please read this before using the platform.',
  sections: {
    lawfulTitle: '1. Lawful use only',
    lawful:
      'Crawldeck is a tool for managing web crawlers. You are solely responsible for how you use it. Crawl only data you are allowed to access, and comply with the laws of your country and of the countries where the target sites operate, including laws on computer misuse, copyright, database rights, personal data and privacy.',
    robotsTitle: '2. Respect the sites you crawl',
    robots:
      'Read and respect each site’s robots.txt and terms of service. Identify your crawler with an honest User-Agent, keep request rates low (use download delays and concurrency limits), stop when a site asks you to, and never bypass logins, paywalls, CAPTCHAs or other access controls without permission.',
    dataTitle: '3. Personal and sensitive data',
    data: 'Do not collect personal data unless you have a lawful basis to do so. Store collected data securely, keep it no longer than needed and delete it on request where the law requires.',
    warrantyTitle: '4. No warranty',
    warranty:
      'The software is provided “as is”, without warranty of any kind, express or implied, including fitness for a particular purpose and non-infringement. The authors and contributors are not liable for any claim, damage or other liability arising from the software or its use, including data loss, service interruption or legal consequences of crawling.',
    thirdTitle: '5. Third-party content',
    third:
      'Content collected by your spiders belongs to its owners. Crawldeck neither owns nor endorses it and is not responsible for its accuracy or legality.',
    acceptTitle: '6. Acceptance',
    accept: 'By using Crawldeck you accept this disclaimer. If you do not agree, do not use the software.',
  },
};
